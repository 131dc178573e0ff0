-- smq's pgmq-compatible schema (placeholder; being written)
CREATE SCHEMA IF NOT EXISTS pgmq;
CREATE TABLE IF NOT EXISTS pgmq.smq_compat (version text NOT NULL);
INSERT INTO pgmq.smq_compat (version) VALUES ('1.10.0');
