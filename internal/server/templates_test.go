package server

import (
	"archive/zip"
	"bytes"
	"encoding/json"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/xuri/excelize/v2"

	"github.com/papierkram/papierkram/internal/testtool"
	"github.com/papierkram/papierkram/store"
)

// TestTemplates: upload (kind read from the content), list, download, use in a spreadsheet
// fill, 409 on a taken name, other keys see nothing, delete.
func TestTemplates(t *testing.T) {
	e := newTestEnv(t)
	tpl := excelize.NewFile()
	tpl.SetCellStr("Sheet1", "A1", "Hallo {{name}}")
	buf, _ := tpl.WriteToBuffer()
	xlsxData := buf.Bytes()

	got := decode(t, e.uploadAs(testKey, "/api/templates", [2]any{"@file", xlsxData}, [2]any{"name", "gruss"}))
	if got["name"] != "gruss" || got["kind"] != "xlsx" || got["size"] != strconv.Itoa(len(xlsxData)) || len(got["sha256"].(string)) != 64 {
		t.Fatalf("upload: %v", got)
	}
	got = decode(t, e.uploadAs(testKey, "/api/templates", [2]any{"@file", []byte("<h1>{{title}}</h1>")}, [2]any{"name", "seite"}))
	if got["kind"] != "html" {
		t.Errorf("html kind: %v", got)
	}
	wantProblem(t, e.uploadAs(testKey, "/api/templates", [2]any{"@file", xlsxData}, [2]any{"name", "gruss"}), 409, "conflict")
	wantProblem(t, e.uploadAs(testKey, "/api/templates", [2]any{"@file", []byte("\x00\x01binary")}, [2]any{"name", "x"}), 415, "unsupported_media_type")
	wantProblem(t, e.uploadAs(testKey, "/api/templates", [2]any{"@file", xlsxData}, [2]any{"name", "../etc"}), 400, "invalid_input")

	res := e.do("GET", "/api/templates", testKey, nil)
	var names []string
	json.Unmarshal(readAll(t, res), &names)
	if strings.Join(names, ",") != "gruss,seite" {
		t.Errorf("list: %v", names)
	}
	res = e.do("GET", "/api/templates/gruss", testKey, nil)
	if b := readAll(t, res); !bytes.Equal(b, xlsxData) || res.Header.Get("Content-Type") != xlsxType {
		t.Errorf("download: %d bytes, %s", len(b), res.Header.Get("Content-Type"))
	}

	filled := readAll(t, e.uploadAs(testKey, "/api/spreadsheets/fill", [2]any{"template", "gruss"}, [2]any{"data", `{"name":"Welt"}`}))
	if f, err := excelize.OpenReader(bytes.NewReader(filled)); err != nil {
		t.Fatal(err)
	} else if v, _ := f.GetCellValue("Sheet1", "A1"); v != "Hallo Welt" {
		t.Errorf("filled from the stored template: %q", v)
	}
	wantProblem(t, e.uploadAs(testKey, "/api/spreadsheets/fill", [2]any{"template", "seite"}, [2]any{"data", `{}`}), 400, "invalid_input")
	wantProblem(t, e.uploadAs(testKey, "/api/spreadsheets/fill", [2]any{"template", "nope"}, [2]any{"data", `{}`}), 404, "not_found")
	wantProblem(t, e.uploadAs(testKey, "/api/spreadsheets/fill", [2]any{"data", `{}`}), 400, "invalid_input")

	other := store.NewSecret()
	if err := e.store.CreateKey(t.Context(), &store.Key{Hash: store.Hash(other), ID: store.IDOf(store.Hash(other)), Name: "other", Plan: store.PlanFree}); err != nil {
		t.Fatal(err)
	}
	res = e.do("GET", "/api/templates", other, nil)
	if b := strings.TrimSpace(string(readAll(t, res))); b != "[]" {
		t.Errorf("another key sees %s", b)
	}
	wantProblem(t, e.do("GET", "/api/templates/gruss", other, nil), 404, "not_found")

	if res := e.do("DELETE", "/api/templates/gruss", testKey, nil); res.StatusCode != 204 {
		t.Errorf("delete: %d", res.StatusCode)
	}
	wantProblem(t, e.do("DELETE", "/api/templates/gruss", testKey, nil), 404, "not_found")
}

// TestZipTemplate: a zip of index.html, a stylesheet and an image generates a PDF in which
// the stylesheet applied (the heading's colour) and the image is drawn.
func TestZipTemplate(t *testing.T) {
	e := newTestEnv(t)
	var buf bytes.Buffer
	z := zip.NewWriter(&buf)
	w, _ := z.Create("index.html")
	w.Write([]byte(`<html><head><link rel="stylesheet" href="style.css"></head><body><h1>Hallo {{name}}</h1><img src="img/dot.png" width="200" height="200"></body></html>`))
	w, _ = z.Create("style.css")
	w.Write([]byte(`h1{color:#ff0000}`))
	w, _ = z.Create("img/dot.png")
	img := image.NewRGBA(image.Rect(0, 0, 4, 4))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	png.Encode(w, img)
	z.Close()
	got := decode(t, e.uploadAs(testKey, "/api/templates", [2]any{"@file", buf.Bytes()}, [2]any{"name", "paket"}))
	if got["kind"] != "zip" {
		t.Fatalf("kind %v", got["kind"])
	}
	out := pdfBody(t, e.do("POST", "/api/documents/generate", testKey, `{"template":"paket","data":{"name":"Welt"}}`))
	if !strings.Contains(testtool.Text(t, out), "Hallo Welt") {
		t.Error("text missing")
	}
	if list := testtool.Run(t, "pdfimages", "-list", testtool.File(t, "z.pdf", out)); strings.Count(list, "\n") < 3 {
		t.Errorf("the zip's image is not in the PDF:\n%s", list)
	}
	qdf := filepath.Join(t.TempDir(), "q.pdf")
	testtool.Run(t, "qpdf", "--qdf", "--object-streams=disable", testtool.File(t, "zq.pdf", out), qdf)
	if raw, _ := os.ReadFile(qdf); !bytes.Contains(raw, []byte("1 0 0 rg")) {
		t.Error("the zip's stylesheet (red heading) did not apply")
	}
}
