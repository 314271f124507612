package spreadsheet

import (
	"context"
	"encoding/json"
	"strings"

	"github.com/papierkram/papierkram/convert"
	"github.com/papierkram/papierkram/convert/xlsx"
	"github.com/papierkram/papierkram/engine/office"
	"github.com/papierkram/papierkram/fault"
)

// Output is a converted file and its type.
type Output struct {
	Data        []byte
	ContentType string
	Ext         string // the file name extension, without the dot
}

// Convert converts a file to another spreadsheet format: to=csv one sheet of a workbook as
// CSV, to=json one sheet as objects keyed by its first row, to=xlsx a CSV into a workbook,
// to=ods the workbook as OpenDocument through LibreOffice (o may be nil for the others).
func Convert(ctx context.Context, o convert.Office, data []byte, filename, to string, opts CSVOptions) (*Output, error) {
	switch to = strings.ToLower(strings.TrimSpace(to)); to {
	case "csv":
		out, err := ToCSV(data, opts)
		if err != nil {
			return nil, err
		}
		return &Output{Data: out, ContentType: "text/csv; charset=utf-8", Ext: to}, nil
	case "json":
		rows, err := ToJSON(data, opts.Sheet)
		if err != nil {
			return nil, err
		}
		b, err := json.Marshal(rows)
		if err != nil {
			return nil, fault.Wrap(fault.Internal, err, "spreadsheet: write JSON")
		}
		return &Output{Data: b, ContentType: "application/json", Ext: to}, nil
	case "xlsx":
		out, err := FromCSV(data, opts)
		if err != nil {
			return nil, err
		}
		return &Output{Data: out, ContentType: "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet", Ext: to}, nil
	case "ods":
		// The file must be a workbook before LibreOffice sees it: anything else would be its
		// 422, or worse, a document of another kind it happily opens.
		if _, err := xlsx.Kind(data, filename); err != nil {
			return nil, err
		}
		if o == nil {
			return nil, fault.New(fault.EngineUnavailable, "LibreOffice is not configured")
		}
		out, err := o.Convert(ctx, office.Job{Document: data, Ext: "xlsx"}, "ods")
		if err != nil {
			return nil, err
		}
		return &Output{Data: out, ContentType: "application/vnd.oasis.opendocument.spreadsheet", Ext: to}, nil
	}
	return nil, fault.New(fault.InvalidInput, "to must be csv, json, ods or xlsx, not %q", to).With("field", "to")
}
