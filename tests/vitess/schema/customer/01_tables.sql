-- Sharded keyspace `customer` (shards -80, 80-). Executed on every shard by vttestserver.

-- The demo table: the load generator inserts, updates and deletes rows here.
CREATE TABLE customer (
  customer_id BIGINT NOT NULL,
  email VARCHAR(128) NOT NULL,
  name VARCHAR(64),
  balance DECIMAL(12, 2) NOT NULL DEFAULT 0,
  visits INT NOT NULL DEFAULT 0,
  updated_at DATETIME(6) NOT NULL DEFAULT CURRENT_TIMESTAMP(6),
  PRIMARY KEY (customer_id)
) ENGINE = InnoDB;

-- A composite primary key.
CREATE TABLE corder (
  customer_id BIGINT NOT NULL,
  order_id BIGINT NOT NULL,
  sku VARCHAR(32) NOT NULL,
  quantity INT NOT NULL,
  price DECIMAL(10, 2) NOT NULL,
  PRIMARY KEY (customer_id, order_id)
) ENGINE = InnoDB;

-- One column of every MySQL type family.
CREATE TABLE all_types (
  id BIGINT NOT NULL,
  c_tinyint TINYINT, c_tinyint_u TINYINT UNSIGNED,
  c_smallint SMALLINT, c_smallint_u SMALLINT UNSIGNED,
  c_mediumint MEDIUMINT, c_mediumint_u MEDIUMINT UNSIGNED,
  c_int INT, c_int_u INT UNSIGNED,
  c_bigint BIGINT, c_bigint_u BIGINT UNSIGNED,
  c_bool BOOLEAN,
  c_decimal DECIMAL(30, 10), c_decimal0 DECIMAL(20, 0),
  c_float FLOAT, c_double DOUBLE,
  c_bit1 BIT(1), c_bit64 BIT(64),
  c_date DATE, c_datetime DATETIME, c_datetime6 DATETIME(6),
  c_timestamp TIMESTAMP(3) NULL DEFAULT NULL,
  c_time TIME, c_time6 TIME(6), c_year YEAR,
  c_char CHAR(10), c_varchar VARCHAR(255), c_varchar_bin VARCHAR(64) CHARACTER SET binary,
  c_tinytext TINYTEXT, c_text TEXT, c_mediumtext MEDIUMTEXT, c_longtext LONGTEXT,
  c_latin1 VARCHAR(32) CHARACTER SET latin1,
  c_binary BINARY(16), c_varbinary VARBINARY(255),
  c_tinyblob TINYBLOB, c_blob BLOB, c_mediumblob MEDIUMBLOB, c_longblob LONGBLOB,
  c_enum ENUM('small', 'medium', 'large'), c_set SET('a', 'b', 'c', 'd'),
  c_json JSON,
  c_geometry GEOMETRY, c_point POINT,
  PRIMARY KEY (id)
) ENGINE = InnoDB;

-- No primary key: refused by default (see docs/options.md).
CREATE TABLE audit_log (
  message VARCHAR(128) NOT NULL,
  created_at DATETIME NOT NULL
) ENGINE = InnoDB;

-- Chunked snapshots (rust/core/tests/live_snapshot.rs): a version counter per row, which a
-- concurrent writer raises with every insert, update, delete and primary-key move while the
-- table is captured; snap_ticks carries the writer's clock, to measure the log's lag meanwhile.
CREATE TABLE snap_rows (
  id BIGINT NOT NULL,
  ver BIGINT NOT NULL,
  pad VARCHAR(64) NOT NULL,
  PRIMARY KEY (id)
) ENGINE = InnoDB;

CREATE TABLE snap_pairs (
  a BIGINT NOT NULL,
  b BIGINT NOT NULL,
  ver BIGINT NOT NULL,
  PRIMARY KEY (a, b)
) ENGINE = InnoDB;

CREATE TABLE snap_ticks (
  id BIGINT NOT NULL,
  written_ms BIGINT NOT NULL,
  PRIMARY KEY (id)
) ENGINE = InnoDB;

-- Signal tables (docs/snapshots.md, "Signals"), one per test suite so that their signals never
-- reach each other's streams: snap_signal for the core's live_snapshot tests, flink_signal for
-- VitessSignalITCase. Each suite deletes its rows when it ends.
CREATE TABLE snap_signal (
  id VARCHAR(64) NOT NULL,
  type VARCHAR(32) NOT NULL,
  data TEXT NULL,
  PRIMARY KEY (id)
) ENGINE = InnoDB;

CREATE TABLE flink_signal (
  id VARCHAR(64) NOT NULL,
  type VARCHAR(32) NOT NULL,
  data TEXT NULL,
  PRIMARY KEY (id)
) ENGINE = InnoDB;

-- Chunked snapshots in Flink (VitessChunkedSnapshotITCase): rows of one test run (`run`), a
-- version counter per row that the concurrent writer raises with every write.
CREATE TABLE flink_snap (
  id BIGINT NOT NULL,
  run BIGINT NOT NULL,
  ver BIGINT NOT NULL,
  pad VARCHAR(64) NOT NULL,
  PRIMARY KEY (id)
) ENGINE = InnoDB;

-- The query-shape suite (VitessQueryShapesITCase): orders with non-key columns to project, filter
-- and group by, the customers they join, and an append-only stream of visits for the event-time
-- temporal join. Each test empties them first; a test owns them while it runs.
CREATE TABLE shape_orders (
  id BIGINT NOT NULL,
  customer_id BIGINT NOT NULL,
  status VARCHAR(16) NOT NULL,
  amount BIGINT NOT NULL,
  ver BIGINT NOT NULL,
  PRIMARY KEY (id)
) ENGINE = InnoDB;

CREATE TABLE shape_customers (
  id BIGINT NOT NULL,
  name VARCHAR(32) NOT NULL,
  tier VARCHAR(8) NOT NULL,
  PRIMARY KEY (id)
) ENGINE = InnoDB;

CREATE TABLE shape_visits (
  id BIGINT NOT NULL,
  customer_id BIGINT NOT NULL,
  PRIMARY KEY (id)
) ENGINE = InnoDB;

-- Failure classes (VitessFailureClassesITCase): rows of which one does not fit the declared
-- type or trips a deserializer; the suite empties the table first.
CREATE TABLE bad_records (
  id BIGINT NOT NULL,
  val BIGINT NOT NULL,
  PRIMARY KEY (id)
) ENGINE = InnoDB;

-- The chaos soak (scripts/soak.sh, docs/reliability.md "Chaos soak"): versioned rows of one soak
-- run (`run`; the writer raises `ver` with every write), an append-only log whose inserts must
-- arrive exactly once, and the soak's own signal table (its re-snapshots reach no other test).
-- Columns a soak adds while it runs (`soak_c<n>`) are dropped when it ends.
CREATE TABLE soak_rows (
  id BIGINT NOT NULL,
  run BIGINT NOT NULL,
  ver BIGINT NOT NULL,
  pad VARCHAR(64) NOT NULL,
  PRIMARY KEY (id)
) ENGINE = InnoDB;

CREATE TABLE soak_appends (
  id BIGINT NOT NULL,
  run BIGINT NOT NULL,
  note VARCHAR(64) NOT NULL,
  PRIMARY KEY (id)
) ENGINE = InnoDB;

CREATE TABLE soak_signal (
  id VARCHAR(64) NOT NULL,
  type VARCHAR(32) NOT NULL,
  data TEXT NULL,
  PRIMARY KEY (id)
) ENGINE = InnoDB;
