package spreadsheet

import (
	"fmt"
	"github.com/papierkram/papierkram/internal/lazyre"
	"strconv"
	"strings"

	"github.com/xuri/excelize/v2"

	"github.com/papierkram/papierkram/convert/tmpl"
	"github.com/papierkram/papierkram/fault"
)

// maxRepeat bounds the rows a template may grow to.
const maxRepeat = 100_000

var (
	cellRef  = lazyre.New(`(\$?[A-Z]{1,3})(\$?)([0-9]+)\b`)
	rangeRef = lazyre.New(`(\$?[A-Z]{1,3}\$?)([0-9]+):(\$?[A-Z]{1,3}\$?)([0-9]+)\b`)
)

// Fill fills a workbook template with data in the template language of package tmpl. A cell
// that is exactly one {{name}} takes the value with its type (numbers stay numbers, so
// formulas and number formats work on them); tags inside other text are replaced by text.
// The rows from one holding {#items} to the one holding {/items} (the same row for a one-row
// block) repeat for every item, with their styles, their formulas moved down to each copy,
// and every range below that ended at the block's last row widened over the copies (so a
// SUM under the block adds every item). {^name} rows stay when name is empty.
func Fill(template []byte, data map[string]any) ([]byte, error) {
	f, err := open(template)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	root := tmpl.New(data)
	for _, sheet := range f.GetSheetList() {
		if err := fillSheet(f, sheet, root); err != nil {
			return nil, err
		}
	}
	full := true
	if err := f.SetCalcProps(&excelize.CalcPropsOptions{FullCalcOnLoad: &full}); err != nil {
		return nil, err
	}
	buf, err := f.WriteToBuffer()
	if err != nil {
		return nil, err
	}
	return buf.Bytes(), nil
}

type block struct {
	start, end int // 1-based rows
	kind, name string
}

func fillSheet(f *excelize.File, sheet string, root tmpl.Scope) error {
	from, added := 1, 0
	for {
		rows, err := f.GetRows(sheet, excelize.Options{RawCellValue: true})
		if err != nil {
			return fault.Wrap(fault.InvalidInput, err, "sheet %q cannot be read", sheet)
		}
		b, err := findBlock(sheet, rows, from)
		if err != nil {
			return err
		}
		if b == nil {
			return fillRows(f, sheet, rows, 1, len(rows), root)
		}
		scopes := root.Expand(b.kind, b.name)
		k := b.end - b.start + 1
		if added += (len(scopes) - 1) * k; added > maxRepeat {
			return fault.New(fault.PayloadTooLarge, "sheet %q: the template grows by more than %d rows", sheet, maxRepeat)
		}
		if err := stripMarkers(f, sheet, rows, *b); err != nil {
			return err
		}
		if len(scopes) == 0 {
			for r := b.end; r >= b.start; r-- {
				if err := f.RemoveRow(sheet, r); err != nil {
					return err
				}
			}
			from = b.start
			continue
		}
		for i := 1; i < len(scopes); i++ {
			for j := 0; j < k; j++ {
				if err := f.DuplicateRowTo(sheet, b.start+j, b.end+1+(i-1)*k+j); err != nil {
					return err
				}
			}
		}
		if err := moveFormulas(f, sheet, *b, len(scopes)); err != nil {
			return err
		}
		rows, err = f.GetRows(sheet, excelize.Options{RawCellValue: true})
		if err != nil {
			return err
		}
		for i, sc := range scopes {
			first := b.start + i*k
			if err := fillRows(f, sheet, rows, first, first+k-1, sc); err != nil {
				return err
			}
		}
		from = b.start + len(scopes)*k
	}
}

// findBlock finds the first section opening at or below row from, and its closing row.
func findBlock(sheet string, rows [][]string, from int) (*block, error) {
	for r := from; r <= len(rows); r++ {
		for _, v := range rows[r-1] {
			for _, m := range tmpl.Section.FindAllStringSubmatch(v, -1) {
				if m[1] == "/" {
					return nil, fault.New(fault.InvalidInput, "sheet %q, row %d: {/%s} closes no section", sheet, r, m[2])
				}
				for e := r; e <= len(rows); e++ {
					for c, w := range rows[e-1] {
						if e == r && !strings.Contains(w, "{/") {
							continue
						}
						for _, n := range tmpl.Section.FindAllStringSubmatch(w, -1) {
							if n[1] == "/" && n[2] == m[2] {
								return &block{start: r, end: e, kind: m[1], name: m[2]}, nil
							}
							if n[1] != "/" && (e != r || c != indexOf(rows[r-1], v)) {
								return nil, fault.New(fault.InvalidInput, "sheet %q, row %d: sections inside sections are not supported in workbooks", sheet, e)
							}
						}
					}
				}
				return nil, fault.New(fault.InvalidInput, "sheet %q, row %d: {%s%s} has no {/%s}", sheet, r, m[1], m[2], m[2])
			}
		}
	}
	return nil, nil
}

func indexOf(list []string, v string) int {
	for i, x := range list {
		if x == v {
			return i
		}
	}
	return -1
}

// stripMarkers removes the section tags from the block's first and last rows.
func stripMarkers(f *excelize.File, sheet string, rows [][]string, b block) error {
	for _, r := range []int{b.start, b.end} {
		for c, v := range rows[r-1] {
			if !tmpl.Section.MatchString(v) {
				continue
			}
			cell, _ := excelize.CoordinatesToCellName(c+1, r)
			rest := tmpl.Section.ReplaceAllString(v, "")
			var err error
			if strings.TrimSpace(rest) == "" {
				err = f.SetCellValue(sheet, cell, nil)
			} else {
				err = f.SetCellStr(sheet, cell, rest)
			}
			if err != nil {
				return err
			}
			rows[r-1][c] = rest
		}
	}
	return nil
}

// moveFormulas points each copy's formulas at its own rows and widens the ranges below the
// copies that ended at the block's last row.
func moveFormulas(f *excelize.File, sheet string, b block, n int) error {
	k := b.end - b.start + 1
	rows, err := f.GetRows(sheet)
	if err != nil {
		return err
	}
	for r := b.start; r <= len(rows); r++ {
		for c := range rows[r-1] {
			cell, _ := excelize.CoordinatesToCellName(c+1, r)
			formula, err := f.GetCellFormula(sheet, cell)
			if err != nil || formula == "" {
				continue
			}
			var moved string
			switch offset := (r - b.start) / k * k; {
			case r <= b.start+n*k-1 && offset > 0:
				moved = cellRef.ReplaceAllStringFunc(formula, func(ref string) string {
					m := cellRef.FindStringSubmatch(ref)
					row, _ := strconv.Atoi(m[3])
					if m[2] == "$" || row < b.start || row > b.end {
						return ref
					}
					return m[1] + strconv.Itoa(row+offset)
				})
			case r > b.start+n*k-1:
				moved = rangeRef.ReplaceAllStringFunc(formula, func(ref string) string {
					m := rangeRef.FindStringSubmatch(ref)
					lo, _ := strconv.Atoi(m[2])
					hi, _ := strconv.Atoi(m[4])
					if hi != b.end || lo > b.end || lo < 1 {
						return ref
					}
					return fmt.Sprintf("%s%d:%s%d", m[1], lo, m[3], hi+(n-1)*k)
				})
			default:
				continue
			}
			if moved != formula {
				if err := f.SetCellFormula(sheet, cell, moved); err != nil {
					return err
				}
			}
		}
	}
	return nil
}

// fillRows fills the value tags of rows first..last with the scope.
func fillRows(f *excelize.File, sheet string, rows [][]string, first, last int, sc tmpl.Scope) error {
	for r := first; r <= last && r <= len(rows); r++ {
		for c, v := range rows[r-1] {
			if !strings.Contains(v, "{{") {
				continue
			}
			cell, _ := excelize.CoordinatesToCellName(c+1, r)
			if m := tmpl.Value.FindStringSubmatch(v); m != nil && m[0] == strings.TrimSpace(v) {
				val, _ := sc.Lookup(m[1])
				var err error
				switch x := val.(type) {
				case float64, bool:
					err = f.SetCellValue(sheet, cell, x)
				case nil:
					err = f.SetCellValue(sheet, cell, nil)
				default:
					err = f.SetCellStr(sheet, cell, tmpl.Format(x))
				}
				if err != nil {
					return err
				}
				continue
			}
			text := tmpl.Value.ReplaceAllStringFunc(v, func(tag string) string {
				val, _ := sc.Lookup(tmpl.Value.FindStringSubmatch(tag)[1])
				return tmpl.Format(val)
			})
			if err := f.SetCellStr(sheet, cell, text); err != nil {
				return err
			}
		}
	}
	return nil
}
