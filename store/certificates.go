package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/papierkram/papierkram/fault"
)

func (s *SQLite) PutCertificate(ctx context.Context, c *Certificate) error {
	if c.UploadedAt.IsZero() {
		c.UploadedAt = time.Now().UTC()
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO certificates (key_id, name, data, subject, issuer, not_before, not_after, sha256, uploaded_at)
		VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`, c.KeyID, c.Name, c.Data, c.Subject, c.Issuer, unixOrNil(c.NotBefore), unixOrNil(c.NotAfter), c.SHA256, c.UploadedAt.Unix())
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE") || strings.Contains(err.Error(), "PRIMARY KEY") {
			return fault.New(fault.Conflict, "a certificate named %q exists already; delete it first", c.Name)
		}
		return fmt.Errorf("store: put certificate: %w", err)
	}
	return nil
}

const certColumns = `key_id, name, subject, issuer, not_before, not_after, sha256, uploaded_at`

func scanCert(row interface{ Scan(...any) error }, withData bool) (*Certificate, error) {
	var (
		c        Certificate
		nb, na   sql.NullInt64
		uploaded int64
	)
	dest := []any{&c.KeyID, &c.Name, &c.Subject, &c.Issuer, &nb, &na, &c.SHA256, &uploaded}
	if withData {
		dest = append(dest, &c.Data)
	}
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	c.NotBefore, c.NotAfter = timeOrNil(nb), timeOrNil(na)
	c.UploadedAt = time.Unix(uploaded, 0).UTC()
	return &c, nil
}

func (s *SQLite) Certificate(ctx context.Context, keyID, name string) (*Certificate, error) {
	c, err := scanCert(s.db.QueryRowContext(ctx, `SELECT `+certColumns+`, data FROM certificates WHERE key_id = ? AND name = ?`, keyID, name), true)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fault.New(fault.NotFound, "no stored certificate named %q", name)
	}
	if err != nil {
		return nil, fmt.Errorf("store: certificate: %w", err)
	}
	return c, nil
}

func (s *SQLite) Certificates(ctx context.Context, keyID string) ([]*Certificate, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+certColumns+` FROM certificates WHERE key_id = ? ORDER BY name`, keyID)
	if err != nil {
		return nil, fmt.Errorf("store: certificates: %w", err)
	}
	defer rows.Close()
	out := []*Certificate{}
	for rows.Next() {
		c, err := scanCert(rows, false)
		if err != nil {
			return nil, fmt.Errorf("store: certificates: %w", err)
		}
		out = append(out, c)
	}
	return out, rows.Err()
}

func (s *SQLite) DeleteCertificate(ctx context.Context, keyID, name string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM certificates WHERE key_id = ? AND name = ?`, keyID, name)
	if err != nil {
		return fmt.Errorf("store: delete certificate: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fault.New(fault.NotFound, "no stored certificate named %q", name)
	}
	return nil
}

func (s *SQLite) SetCertificateInfo(ctx context.Context, keyID, name, subject, issuer string, notBefore, notAfter time.Time) error {
	_, err := s.db.ExecContext(ctx, `UPDATE certificates SET subject = ?, issuer = ?, not_before = ?, not_after = ? WHERE key_id = ? AND name = ?`,
		subject, issuer, notBefore.Unix(), notAfter.Unix(), keyID, name)
	if err != nil {
		return fmt.Errorf("store: certificate info: %w", err)
	}
	return nil
}

func unixOrNil(t *time.Time) any {
	if t == nil {
		return nil
	}
	return t.Unix()
}

func timeOrNil(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := time.Unix(n.Int64, 0).UTC()
	return &t
}
