-- 4: fonts per key, with what their name table says.
CREATE TABLE fonts (
	key_id      text COLLATE "C" NOT NULL,
	name        text COLLATE "C" NOT NULL,
	family      text NOT NULL,
	weight      integer NOT NULL,
	italic      boolean NOT NULL,
	format      text NOT NULL,
	data        bytea NOT NULL,
	sha256      text NOT NULL,
	uploaded_at timestamptz NOT NULL,
	PRIMARY KEY (key_id, name)
);
