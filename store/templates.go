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

func (s *SQLite) PutTemplate(ctx context.Context, t *Template) error {
	if t.UploadedAt.IsZero() {
		t.UploadedAt = time.Now().UTC()
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO templates (key_id, name, kind, data, sha256, uploaded_at) VALUES (?, ?, ?, ?, ?, ?)`,
		t.KeyID, t.Name, t.Kind, t.Data, t.SHA256, t.UploadedAt.Unix())
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE") || strings.Contains(err.Error(), "PRIMARY KEY") {
			return fault.New(fault.Conflict, "a template named %q exists already; delete it first", t.Name)
		}
		return fmt.Errorf("store: put template: %w", err)
	}
	t.Size = int64(len(t.Data))
	return nil
}

const templateColumns = `key_id, name, kind, length(data), sha256, uploaded_at`

func scanTemplate(row interface{ Scan(...any) error }, withData bool) (*Template, error) {
	var t Template
	var uploaded int64
	dest := []any{&t.KeyID, &t.Name, &t.Kind, &t.Size, &t.SHA256, &uploaded}
	if withData {
		dest = append(dest, &t.Data)
	}
	if err := row.Scan(dest...); err != nil {
		return nil, err
	}
	t.UploadedAt = time.Unix(uploaded, 0).UTC()
	return &t, nil
}

func (s *SQLite) Template(ctx context.Context, keyID, name string) (*Template, error) {
	t, err := scanTemplate(s.db.QueryRowContext(ctx, `SELECT `+templateColumns+`, data FROM templates WHERE key_id = ? AND name = ?`, keyID, name), true)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, fault.New(fault.NotFound, "no stored template named %q", name)
	}
	if err != nil {
		return nil, fmt.Errorf("store: template: %w", err)
	}
	return t, nil
}

func (s *SQLite) Templates(ctx context.Context, keyID string) ([]*Template, error) {
	rows, err := s.db.QueryContext(ctx, `SELECT `+templateColumns+` FROM templates WHERE key_id = ? ORDER BY name`, keyID)
	if err != nil {
		return nil, fmt.Errorf("store: templates: %w", err)
	}
	defer rows.Close()
	out := []*Template{}
	for rows.Next() {
		t, err := scanTemplate(rows, false)
		if err != nil {
			return nil, fmt.Errorf("store: templates: %w", err)
		}
		out = append(out, t)
	}
	return out, rows.Err()
}

func (s *SQLite) DeleteTemplate(ctx context.Context, keyID, name string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM templates WHERE key_id = ? AND name = ?`, keyID, name)
	if err != nil {
		return fmt.Errorf("store: delete template: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fault.New(fault.NotFound, "no stored template named %q", name)
	}
	return nil
}
