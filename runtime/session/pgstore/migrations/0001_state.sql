-- Session state: opaque bytes under (session, namespace, key), as
-- session.Store defines it. Every name is bytea, not text: ids and keys
-- may hold NUL and bytes that are not UTF-8, which text refuses, and
-- bytea orders by bytes, which List promises.
CREATE TABLE toolhost_session_state (
    session    bytea       NOT NULL,
    ns         bytea       NOT NULL,
    key        bytea       NOT NULL,
    value      bytea       NOT NULL,
    updated_at timestamptz NOT NULL DEFAULT now(),
    PRIMARY KEY (session, ns, key)
);
