package store

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/papierkram/papierkram/fault"
)

func (s *SQLite) PutFont(ctx context.Context, f *Font) error {
	if f.UploadedAt.IsZero() {
		f.UploadedAt = time.Now().UTC()
	}
	_, err := s.db.ExecContext(ctx, `INSERT INTO fonts (key_id, name, family, weight, italic, format, data, sha256, uploaded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
		f.KeyID, f.Name, f.Family, f.Weight, f.Italic, f.Format, f.Data, f.SHA256, f.UploadedAt.Unix())
	if err != nil {
		if strings.Contains(err.Error(), "UNIQUE") || strings.Contains(err.Error(), "PRIMARY KEY") {
			return fault.New(fault.Conflict, "a font named %q exists already; delete it first", f.Name)
		}
		return fmt.Errorf("store: put font: %w", err)
	}
	f.Size = int64(len(f.Data))
	return nil
}

func (s *SQLite) Fonts(ctx context.Context, keyID string, withData bool) ([]*Font, error) {
	cols := `key_id, name, family, weight, italic, format, length(data), sha256, uploaded_at`
	if withData {
		cols += `, data`
	}
	rows, err := s.db.QueryContext(ctx, `SELECT `+cols+` FROM fonts WHERE key_id = ? ORDER BY name`, keyID)
	if err != nil {
		return nil, fmt.Errorf("store: fonts: %w", err)
	}
	defer rows.Close()
	out := []*Font{}
	for rows.Next() {
		var f Font
		var uploaded int64
		dest := []any{&f.KeyID, &f.Name, &f.Family, &f.Weight, &f.Italic, &f.Format, &f.Size, &f.SHA256, &uploaded}
		if withData {
			dest = append(dest, &f.Data)
		}
		if err := rows.Scan(dest...); err != nil {
			return nil, fmt.Errorf("store: fonts: %w", err)
		}
		f.UploadedAt = time.Unix(uploaded, 0).UTC()
		out = append(out, &f)
	}
	return out, rows.Err()
}

func (s *SQLite) DeleteFont(ctx context.Context, keyID, name string) error {
	res, err := s.db.ExecContext(ctx, `DELETE FROM fonts WHERE key_id = ? AND name = ?`, keyID, name)
	if err != nil {
		return fmt.Errorf("store: delete font: %w", err)
	}
	if n, _ := res.RowsAffected(); n == 0 {
		return fault.New(fault.NotFound, "no font named %q", name)
	}
	return nil
}
