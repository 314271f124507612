package rules

// declaredPeppol declares the rules of Peppol BIS Billing 3.0 that XRechnung does not take
// over (those are in declared): PEPPOL-EN16931-*, PEPPOL-COMMON-*. Same form as declared.
var declaredPeppol = map[string]declaration{}

// declaredNational declares the national rules of Peppol BIS Billing 3.0.
var declaredNational = map[string]declaration{}
