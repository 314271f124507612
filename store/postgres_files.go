package store

import (
	"context"
	"errors"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/papierkram/papierkram/fault"
)

// The files of a key (certificates, templates, fonts) are bytea columns: instances behind a
// load balancer share the database and nothing else, so no file may live on one of their disks.

func (p *Postgres) PutCertificate(ctx context.Context, c *Certificate) error {
	if c.UploadedAt.IsZero() {
		c.UploadedAt = time.Now().UTC()
	}
	_, err := p.pool.Exec(ctx, `INSERT INTO certificates (key_id, name, data, subject, issuer, not_before, not_after, sha256, uploaded_at)
		VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`, c.KeyID, c.Name, nonNil(c.Data), c.Subject, c.Issuer,
		pgTimeOrNil(c.NotBefore), pgTimeOrNil(c.NotAfter), c.SHA256, pgTime(c.UploadedAt))
	if isUniqueViolation(err) {
		return fault.Wrap(fault.Conflict, err, "a certificate named %q exists already; delete it first", c.Name)
	}
	if err != nil {
		return pgError(err, "put certificate")
	}
	return nil
}

func scanPgCert(row pgx.Row, withData bool) (*Certificate, error) {
	var (
		c        Certificate
		nb, na   *time.Time
		uploaded time.Time
	)
	dest := []any{&c.KeyID, &c.Name, &c.Subject, &c.Issuer, &nb, &na, &c.SHA256, &uploaded}
	if withData {
		dest = append(dest, &c.Data)
	}
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	c.NotBefore, c.NotAfter = utcOrNil(nb), utcOrNil(na)
	c.UploadedAt = uploaded.UTC()
	return &c, nil
}

func (p *Postgres) Certificate(ctx context.Context, keyID, name string) (*Certificate, error) {
	c, err := scanPgCert(p.pool.QueryRow(ctx, `SELECT `+certColumns+`, data FROM certificates WHERE key_id = $1 AND name = $2`, keyID, name), true)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fault.New(fault.NotFound, "no stored certificate named %q", name)
	}
	if err != nil {
		return nil, pgError(err, "certificate")
	}
	return c, nil
}

func (p *Postgres) Certificates(ctx context.Context, keyID string) ([]*Certificate, error) {
	rows, err := p.pool.Query(ctx, `SELECT `+certColumns+` FROM certificates WHERE key_id = $1 ORDER BY name`, keyID)
	if err != nil {
		return nil, pgError(err, "certificates")
	}
	defer rows.Close()
	out := []*Certificate{}
	for rows.Next() {
		c, err := scanPgCert(rows, false)
		if err != nil {
			return nil, pgError(err, "certificates")
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, pgError(err, "certificates")
	}
	return out, nil
}

func (p *Postgres) DeleteCertificate(ctx context.Context, keyID, name string) error {
	tag, err := p.pool.Exec(ctx, `DELETE FROM certificates WHERE key_id = $1 AND name = $2`, keyID, name)
	if err != nil {
		return pgError(err, "delete certificate")
	}
	if tag.RowsAffected() == 0 {
		return fault.New(fault.NotFound, "no stored certificate named %q", name)
	}
	return nil
}

func (p *Postgres) SetCertificateInfo(ctx context.Context, keyID, name, subject, issuer string, notBefore, notAfter time.Time) error {
	_, err := p.pool.Exec(ctx, `UPDATE certificates SET subject = $1, issuer = $2, not_before = $3, not_after = $4 WHERE key_id = $5 AND name = $6`,
		subject, issuer, pgTime(notBefore), pgTime(notAfter), keyID, name)
	if err != nil {
		return pgError(err, "certificate info")
	}
	return nil
}

func (p *Postgres) PutTemplate(ctx context.Context, t *Template) error {
	if t.UploadedAt.IsZero() {
		t.UploadedAt = time.Now().UTC()
	}
	_, err := p.pool.Exec(ctx, `INSERT INTO templates (key_id, name, kind, data, sha256, uploaded_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		t.KeyID, t.Name, t.Kind, nonNil(t.Data), t.SHA256, pgTime(t.UploadedAt))
	if isUniqueViolation(err) {
		return fault.Wrap(fault.Conflict, err, "a template named %q exists already; delete it first", t.Name)
	}
	if err != nil {
		return pgError(err, "put template")
	}
	t.Size = int64(len(t.Data))
	return nil
}

// pgTemplateColumns are SQLite's templateColumns in PostgreSQL: octet_length is the size
// of a bytea in bytes.
const pgTemplateColumns = `key_id, name, kind, octet_length(data), sha256, uploaded_at`

func scanPgTemplate(row pgx.Row, withData bool) (*Template, error) {
	var t Template
	var uploaded time.Time
	dest := []any{&t.KeyID, &t.Name, &t.Kind, &t.Size, &t.SHA256, &uploaded}
	if withData {
		dest = append(dest, &t.Data)
	}
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	t.UploadedAt = uploaded.UTC()
	return &t, nil
}

func (p *Postgres) Template(ctx context.Context, keyID, name string) (*Template, error) {
	t, err := scanPgTemplate(p.pool.QueryRow(ctx, `SELECT `+pgTemplateColumns+`, data FROM templates WHERE key_id = $1 AND name = $2`, keyID, name), true)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, fault.New(fault.NotFound, "no stored template named %q", name)
	}
	if err != nil {
		return nil, pgError(err, "template")
	}
	return t, nil
}

func (p *Postgres) Templates(ctx context.Context, keyID string) ([]*Template, error) {
	rows, err := p.pool.Query(ctx, `SELECT `+pgTemplateColumns+` FROM templates WHERE key_id = $1 ORDER BY name`, keyID)
	if err != nil {
		return nil, pgError(err, "templates")
	}
	defer rows.Close()
	out := []*Template{}
	for rows.Next() {
		t, err := scanPgTemplate(rows, false)
		if err != nil {
			return nil, pgError(err, "templates")
		}
		out = append(out, t)
	}
	if err := rows.Err(); err != nil {
		return nil, pgError(err, "templates")
	}
	return out, nil
}

func (p *Postgres) DeleteTemplate(ctx context.Context, keyID, name string) error {
	tag, err := p.pool.Exec(ctx, `DELETE FROM templates WHERE key_id = $1 AND name = $2`, keyID, name)
	if err != nil {
		return pgError(err, "delete template")
	}
	if tag.RowsAffected() == 0 {
		return fault.New(fault.NotFound, "no stored template named %q", name)
	}
	return nil
}

func (p *Postgres) PutFont(ctx context.Context, f *Font) error {
	if f.UploadedAt.IsZero() {
		f.UploadedAt = time.Now().UTC()
	}
	_, err := p.pool.Exec(ctx, `INSERT INTO fonts (key_id, name, family, weight, italic, format, data, sha256, uploaded_at) VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9)`,
		f.KeyID, f.Name, f.Family, f.Weight, f.Italic, f.Format, nonNil(f.Data), f.SHA256, pgTime(f.UploadedAt))
	if isUniqueViolation(err) {
		return fault.Wrap(fault.Conflict, err, "a font named %q exists already; delete it first", f.Name)
	}
	if err != nil {
		return pgError(err, "put font")
	}
	f.Size = int64(len(f.Data))
	return nil
}

func (p *Postgres) Fonts(ctx context.Context, keyID string, withData bool) ([]*Font, error) {
	cols := `key_id, name, family, weight, italic, format, octet_length(data), sha256, uploaded_at`
	if withData {
		cols += `, data`
	}
	rows, err := p.pool.Query(ctx, `SELECT `+cols+` FROM fonts WHERE key_id = $1 ORDER BY name`, keyID)
	if err != nil {
		return nil, pgError(err, "fonts")
	}
	defer rows.Close()
	out := []*Font{}
	for rows.Next() {
		var f Font
		var uploaded time.Time
		dest := []any{&f.KeyID, &f.Name, &f.Family, &f.Weight, &f.Italic, &f.Format, &f.Size, &f.SHA256, &uploaded}
		if withData {
			dest = append(dest, &f.Data)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, pgError(err, "fonts")
		}
		f.UploadedAt = uploaded.UTC()
		out = append(out, &f)
	}
	if err := rows.Err(); err != nil {
		return nil, pgError(err, "fonts")
	}
	return out, nil
}

func (p *Postgres) DeleteFont(ctx context.Context, keyID, name string) error {
	tag, err := p.pool.Exec(ctx, `DELETE FROM fonts WHERE key_id = $1 AND name = $2`, keyID, name)
	if err != nil {
		return pgError(err, "delete font")
	}
	if tag.RowsAffected() == 0 {
		return fault.New(fault.NotFound, "no font named %q", name)
	}
	return nil
}
