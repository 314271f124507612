-- 3: document templates per key (HTML, .docx, .xlsx, zip of HTML and assets).
CREATE TABLE templates (
	key_id      text COLLATE "C" NOT NULL,
	name        text COLLATE "C" NOT NULL,
	kind        text NOT NULL,
	data        bytea NOT NULL,
	sha256      text NOT NULL,
	uploaded_at timestamptz NOT NULL,
	PRIMARY KEY (key_id, name)
);
