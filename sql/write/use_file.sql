-- The attached file {alias} as the connection's default database: sql/ reads it unqualified.
USE {alias};
