-- One row per idempotency key: what this package has sent and what the endpoint answered.
-- "sending" means the POST may have reached the endpoint; only the endpoint can then tell.
CREATE TABLE webhook_deliveries (
    idempotency_key TEXT PRIMARY KEY,
    capability_id   TEXT NOT NULL,
    url             TEXT NOT NULL,
    state           TEXT NOT NULL CHECK (state IN ('sending', 'delivered')),
    delivery_id     TEXT,
    http_status     INTEGER,
    created_at      TIMESTAMPTZ NOT NULL DEFAULT now(),
    delivered_at    TIMESTAMPTZ
);
