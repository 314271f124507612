package server

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"path"
	"strings"
	"time"

	"github.com/danielgtaylor/huma/v2"

	"github.com/papierkram/papierkram/convert"
	"github.com/papierkram/papierkram/fault"
	"github.com/papierkram/papierkram/store"
)

// FontEntry is an uploaded font in listings.
type FontEntry struct {
	Name       string `json:"name" example:"hausschrift-bold"`
	Family     string `json:"family" doc:"The family name to use in CSS font-family." example:"Hausschrift"`
	Weight     int    `json:"weight" example:"700"`
	Italic     bool   `json:"italic"`
	Format     string `json:"format" enum:"truetype,opentype"`
	Size       int64  `json:"size"`
	SHA256     string `json:"sha256"`
	UploadedAt string `json:"uploadedAt"`
}

// Substitution is a font name documents ask for and the installed family that stands in.
type Substitution struct {
	Requested string `json:"requested" example:"Calibri"`
	Used      string `json:"used" example:"Carlito"`
}

// FontList is the answer of GET /api/fonts.
type FontList struct {
	Fonts         []FontEntry    `json:"fonts" doc:"The calling key's uploaded fonts."`
	Pool          []string       `json:"pool" doc:"Families installed for every render."`
	Substitutions []Substitution `json:"substitutions" doc:"Metric-compatible stand-ins for common proprietary fonts."`
}

// The base pool installed by scripts/setup.sh, and fontconfig's stand-ins from those
// packages.
var (
	fontPool = []string{"Liberation Sans", "Liberation Serif", "Liberation Mono", "Carlito", "Caladea", "DejaVu Sans", "DejaVu Serif", "DejaVu Sans Mono", "Noto Sans", "Noto Serif",
		"Noto Sans CJK SC", "Noto Sans CJK TC", "Noto Sans CJK JP", "Noto Sans CJK KR", "Noto Serif CJK SC", "Noto Serif CJK TC", "Noto Serif CJK JP", "Noto Serif CJK KR"}
	// The CJK stand-ins are our fontconfig aliases (scripts/fontconfig), the others
	// fontconfig's own metric aliases.
	substitutions = []Substitution{{"Calibri", "Carlito"}, {"Cambria", "Caladea"}, {"Arial", "Liberation Sans"}, {"Helvetica", "Liberation Sans"},
		{"Times New Roman", "Liberation Serif"}, {"Times", "Liberation Serif"}, {"Courier New", "Liberation Mono"}, {"Courier", "Liberation Mono"},
		{"Microsoft YaHei", "Noto Sans CJK SC"}, {"SimHei", "Noto Sans CJK SC"}, {"SimSun", "Noto Serif CJK SC"}, {"Microsoft JhengHei", "Noto Sans CJK TC"},
		{"PMingLiU", "Noto Serif CJK TC"}, {"MS Gothic", "Noto Sans CJK JP"}, {"Meiryo", "Noto Sans CJK JP"}, {"Yu Gothic", "Noto Sans CJK JP"},
		{"MS Mincho", "Noto Serif CJK JP"}, {"Malgun Gothic", "Noto Sans CJK KR"}, {"Batang", "Noto Serif CJK KR"}}
	fontUpload = form{
		{Name: "file", Doc: "A TrueType (.ttf) or OpenType (.otf) font.", File: true, Required: true, Types: []string{"font/ttf", "font/otf"}},
		{Name: "name", Doc: "Name to manage it by; default the file name without extension."},
	}
)

type fontPath struct {
	Name string `path:"name" maxLength:"100" example:"hausschrift-bold"`
}

// keyFonts are the calling key's fonts for its HTML renders.
func (s *Server) keyFonts(ctx context.Context) ([]convert.FontFace, error) {
	k := keyFrom(ctx)
	if k == nil {
		return nil, nil
	}
	return s.fontsOf(ctx, k.ID)
}

// fontsOf is a key's uploaded fonts, for work done outside its request (a job).
func (s *Server) fontsOf(ctx context.Context, keyID string) ([]convert.FontFace, error) {
	fonts, err := s.store.Fonts(ctx, keyID, true)
	if err != nil {
		return nil, err
	}
	out := make([]convert.FontFace, 0, len(fonts))
	for _, f := range fonts {
		out = append(out, convert.FontFace{Family: f.Family, Weight: f.Weight, Italic: f.Italic, Format: f.Format, Data: f.Data})
	}
	return out, nil
}

func (s *Server) registerFonts() {
	tag := []string{"Fonts"}
	register(s, huma.Operation{
		OperationID: "getFonts", Method: http.MethodGet, Path: "/api/fonts", Tags: tag, Summary: "List fonts",
	}, func(ctx context.Context, _ *struct{}) (*struct{ Body FontList }, error) {
		fonts, err := s.store.Fonts(ctx, keyFrom(ctx).ID, false)
		if err != nil {
			return nil, err
		}
		l := FontList{Fonts: []FontEntry{}, Pool: fontPool, Substitutions: substitutions}
		for _, f := range fonts {
			l.Fonts = append(l.Fonts, fontEntry(f))
		}
		return &struct{ Body FontList }{l}, nil
	})

	register(s, huma.Operation{
		OperationID: "postFonts", Method: http.MethodPost, Path: "/api/fonts", Tags: tag, Summary: "Upload a font",
		RequestBody: fontUpload.body(),
	}, func(ctx context.Context, _ *struct{}) (*struct{ Body FontEntry }, error) {
		u, err := fontUpload.read(ctx)
		if err != nil {
			return nil, err
		}
		file := u.File("file")
		face, err := convert.ReadFont(file.Data)
		if err != nil {
			return nil, err
		}
		name := u.Fields["name"]
		if name == "" {
			name = strings.TrimSuffix(file.Filename, path.Ext(file.Filename))
		}
		if !certName.MatchString(name) {
			return nil, fault.New(fault.InvalidInput, "font name %q: use 1 to 100 letters, digits, dots, underscores or hyphens", name).With("field", "name")
		}
		sum := sha256.Sum256(file.Data)
		f := &store.Font{KeyID: keyFrom(ctx).ID, Name: name, Family: face.Family, Weight: face.Weight, Italic: face.Italic, Format: face.Format,
			Data: file.Data, SHA256: hex.EncodeToString(sum[:]), UploadedAt: s.now().UTC()}
		if err := s.store.PutFont(ctx, f); err != nil {
			return nil, err
		}
		return &struct{ Body FontEntry }{fontEntry(f)}, nil
	}, bodyLimit(convert.MaxFont+1<<20))

	register(s, huma.Operation{
		OperationID: "deleteFontsByName", Method: http.MethodDelete, Path: "/api/fonts/{name}", Tags: tag, Summary: "Delete a font",
		DefaultStatus: http.StatusNoContent, Errors: []int{http.StatusNotFound},
	}, func(ctx context.Context, in *fontPath) (*struct{}, error) {
		return nil, s.store.DeleteFont(ctx, keyFrom(ctx).ID, in.Name)
	})
}

func fontEntry(f *store.Font) FontEntry {
	return FontEntry{Name: f.Name, Family: f.Family, Weight: f.Weight, Italic: f.Italic, Format: f.Format, Size: f.Size, SHA256: f.SHA256, UploadedAt: f.UploadedAt.Format(time.RFC3339)}
}
