-- Sharded keyspace `strict` (3 shards: -55, 55-aa, aa-). Executed on every shard by vttestserver.
-- Tables for the strict-changelog tests (VitessChangelogAggregatesITCase): one per primary-key
-- shape whose order the copy phase pages by. Each has a numeric column to SUM (`amount`), a
-- low-cardinality column to GROUP BY (`grp`), the writer's run id (`run`: a test's rows, its
-- cleanup) and `pad`, which makes rows big enough (~1 KB) that a shard's copy takes several
-- VStream packets (~250 KB each): a checkpoint can then fall inside the copy.

-- Composite key; the vindex is on `tenant`, so changing `tenant` moves the row to another shard.
CREATE TABLE s_composite (
  tenant BIGINT NOT NULL,
  id BIGINT NOT NULL,
  run BIGINT NOT NULL,
  grp VARCHAR(8) NOT NULL,
  amount BIGINT NOT NULL,
  pad VARCHAR(2048) NOT NULL,
  PRIMARY KEY (tenant, id)
) ENGINE = InnoDB;

-- Byte-string key: order is by bytes, shorter prefix first (0x00 and 0xff included).
CREATE TABLE s_varbinary (
  k VARBINARY(32) NOT NULL,
  run BIGINT NOT NULL,
  grp VARCHAR(8) NOT NULL,
  amount BIGINT NOT NULL,
  pad VARCHAR(2048) NOT NULL,
  PRIMARY KEY (k)
) ENGINE = InnoDB;

-- Text key in the default collation (utf8mb4_0900_ai_ci): accent- and case-insensitive order,
-- which is not the order of the bytes.
CREATE TABLE s_varchar (
  k VARCHAR(64) NOT NULL,
  run BIGINT NOT NULL,
  grp VARCHAR(8) NOT NULL,
  amount BIGINT NOT NULL,
  pad VARCHAR(2048) NOT NULL,
  PRIMARY KEY (k)
) ENGINE = InnoDB;

-- Text key in a binary collation: code-point order (= UTF-8 byte order for keys without
-- trailing spaces, which the writer never generates: utf8mb4_bin pads with spaces).
CREATE TABLE s_varchar_bin (
  k VARCHAR(64) COLLATE utf8mb4_bin NOT NULL,
  run BIGINT NOT NULL,
  grp VARCHAR(8) NOT NULL,
  amount BIGINT NOT NULL,
  pad VARCHAR(2048) NOT NULL,
  PRIMARY KEY (k)
) ENGINE = InnoDB;

-- Unsigned key over the whole u64 range: keys above 2^63 sort after every key below it.
CREATE TABLE s_unsigned (
  k BIGINT UNSIGNED NOT NULL,
  run BIGINT NOT NULL,
  grp VARCHAR(8) NOT NULL,
  amount BIGINT NOT NULL,
  pad VARCHAR(2048) NOT NULL,
  PRIMARY KEY (k)
) ENGINE = InnoDB;
