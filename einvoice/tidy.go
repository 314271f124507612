package einvoice

import (
	"reflect"
	"slices"
)

var identifierType = reflect.TypeFor[Identifier]()

// Tidy drops what carries no information after reading: an identifier whose scheme is given
// but whose value is empty, an empty note or third-party payment (an element without
// content, which writing leaves out). The readers call it, so that a document and its
// re-written form give the same model.
func Tidy(inv *Invoice) {
	tidy(reflect.ValueOf(inv).Elem())
	inv.Notes = slices.DeleteFunc(inv.Notes, func(n Note) bool { return n == Note{} })
	if len(inv.Notes) == 0 {
		inv.Notes = nil
	}
	inv.PrepaidPayments = slices.DeleteFunc(inv.PrepaidPayments, func(p PrepaidPayment) bool {
		return p.ID == "" && !p.Amount.Valid() && p.Description == ""
	})
	if len(inv.PrepaidPayments) == 0 {
		inv.PrepaidPayments = nil
	}
}

func tidy(v reflect.Value) {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == identifierType {
			if v.Field(0).String() == "" {
				v.Set(reflect.Zero(identifierType))
			}
			return
		}
		for i := range v.NumField() {
			tidy(v.Field(i))
		}
	case reflect.Slice:
		if v.Type().Elem() == identifierType {
			kept := v.Slice(0, 0)
			for i := range v.Len() {
				if v.Index(i).Field(0).String() != "" {
					kept = reflect.Append(kept, v.Index(i))
				}
			}
			if kept.Len() == 0 {
				kept = reflect.Zero(v.Type())
			}
			v.Set(kept)
			return
		}
		for i := range v.Len() {
			tidy(v.Index(i))
		}
	}
}
