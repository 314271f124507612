package conform

import "testing"

// TestReadCIDMap: the code width comes from the codespace (Ghostscript writes one-byte
// codes, <00> <FF>); a wrong width made every code of its fonts .notdef.
func TestReadCIDMap(t *testing.T) {
	for _, tc := range []struct {
		program string
		width   int
		code    int
		cid     int
	}{
		{"1 begincodespacerange\n<00> <FF>\nendcodespacerange\n1 begincidrange\n<00> <FF> 0\nendcidrange", 1, 0x41, 0x41},
		{"1 begincodespacerange\n<0000><FFFF>\nendcodespacerange\n1 begincidchar\n<0102> 77\nendcidchar", 2, 0x0102, 77},
		{"1 begincodespacerange\n<8140> <FCFC>\nendcodespacerange\n1 begincidrange\n<8140> <817e> 633\nendcidrange", 2, 0x8141, 634},
	} {
		m := readCIDMap([]byte(tc.program))
		if m.width != tc.width || m.cids[tc.code] != tc.cid {
			t.Errorf("%q: width %d, code %x -> %d; want %d, %d", tc.program, m.width, tc.code, m.cids[tc.code], tc.width, tc.cid)
		}
	}
}
