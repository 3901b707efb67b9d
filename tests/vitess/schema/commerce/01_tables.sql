-- Unsharded keyspace `commerce`.
CREATE TABLE product (
  sku VARCHAR(32) NOT NULL,
  description VARCHAR(128),
  price BIGINT NOT NULL,
  PRIMARY KEY (sku)
) ENGINE = InnoDB;
