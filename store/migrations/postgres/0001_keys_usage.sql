-- 1: keys and usage. Text that identifies rows uses the "C" collation so that ordering and
-- equality are bytewise, as in SQLite, whatever locale the database was created with.
CREATE TABLE keys (
	id          text COLLATE "C" PRIMARY KEY,
	name        text NOT NULL,
	hash        bytea NOT NULL UNIQUE CHECK (octet_length(hash) = 32),
	plan        text NOT NULL,
	monthly     bigint NOT NULL DEFAULT 0,
	created_at  timestamptz NOT NULL,
	revoked_at  timestamptz
);

CREATE TABLE usage (
	key_id      text COLLATE "C" NOT NULL,
	month       text COLLATE "C" NOT NULL,
	family      text COLLATE "C" NOT NULL,
	requests    bigint NOT NULL DEFAULT 0,
	conversions bigint NOT NULL DEFAULT 0,
	credits     bigint NOT NULL DEFAULT 0,
	PRIMARY KEY (key_id, month, family)
);

-- The monthly allowance spans every family of a key, but one statement can only guard one
-- row. This row is the key's month total: ReserveConversion increments it and the family
-- row in one statement, conditionally on this row, so concurrent instances serialise on
-- its row lock and never grant more than the limit. It always equals
-- SUM(usage.conversions) of the key and month.
CREATE TABLE conversion_totals (
	key_id      text COLLATE "C" NOT NULL,
	month       text COLLATE "C" NOT NULL,
	conversions bigint NOT NULL DEFAULT 0 CHECK (conversions >= 0),
	PRIMARY KEY (key_id, month)
);
