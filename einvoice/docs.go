package einvoice

//go:generate go run ./internal/docgen

import "reflect"

// FieldDoc is the doc comment of a model field, "Type.Field" (e.g. "Invoice.Number" gives
// "BT-1 Invoice number"), for API documentation.
func FieldDoc(key string) string { return fieldDocs[key] }

// DocumentedTypes are the model's struct types.
func DocumentedTypes() []reflect.Type {
	return []reflect.Type{
		reflect.TypeFor[Invoice](), reflect.TypeFor[Identifier](), reflect.TypeFor[Note](), reflect.TypeFor[PrecedingInvoice](),
		reflect.TypeFor[Party](), reflect.TypeFor[Address](), reflect.TypeFor[Contact](), reflect.TypeFor[Delivery](),
		reflect.TypeFor[Period](), reflect.TypeFor[Payment](), reflect.TypeFor[CreditTransfer](), reflect.TypeFor[Card](),
		reflect.TypeFor[DirectDebit](), reflect.TypeFor[AllowanceCharge](), reflect.TypeFor[Totals](), reflect.TypeFor[VATBreakdown](),
		reflect.TypeFor[SupportingDocument](), reflect.TypeFor[Attachment](), reflect.TypeFor[Line](), reflect.TypeFor[Price](),
		reflect.TypeFor[Item](), reflect.TypeFor[Classification](), reflect.TypeFor[ItemAttribute](), reflect.TypeFor[PrepaidPayment](),
		reflect.TypeFor[LogisticsCharge](),
	}
}
