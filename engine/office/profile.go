package office

import (
	"html"
	"os"
	"path/filepath"
	"strings"
)

// setting is one value of LibreOffice's configuration (names as in its officecfg schema,
// share/registry/*.xcd).
type setting struct {
	path, name, value string
}

// hardening is LibreOffice's own defence against documents that reach outside themselves,
// written into every soffice's user profile before it starts (names checked against
// LibreOffice 7.4's schema, share/registry/main.xcd). Macros never run, links are never
// updated, linked pictures and sections of a document from an untrusted place (every
// place: no location is trusted) are not fetched, and whatever still goes to the network
// goes to a proxy that answers nothing. The bridge adds its load properties (macros never,
// no link updates). This build of LibreOffice has no online update check to turn off.
var hardening = []setting{
	// Macros: "very high" (only from trusted locations, and there are none), then off.
	{"/org.openoffice.Office.Common/Security/Scripting", "MacroSecurityLevel", "3"},
	{"/org.openoffice.Office.Common/Security/Scripting", "DisableMacrosExecution", "true"},
	{"/org.openoffice.Office.Common/Security/Scripting", "OfficeBasic", "0"}, // never
	{"/org.openoffice.Office.Common/Security/Scripting", "SecureURL", ""},    // no trusted location
	{"/org.openoffice.Office.Common/Security/Scripting", "ExecutePlugins", "false"},
	// Linked graphics are fetched only for documents from a trusted location: none.
	{"/org.openoffice.Office.Common/Security/Scripting", "BlockUntrustedRefererLinks", "true"},
	{"/org.openoffice.Office.Common/Misc", "PluginsEnabled", "false"},
	{"/org.openoffice.Office.Common/Misc", "CrashReport", "false"},
	// Links (linked sections, OLE links, DDE, sheet and area links, WEBSERVICE) are
	// never updated: Writer 0 = never; Calc 1 = never (0 always, 2 on request).
	{"/org.openoffice.Office.Writer/Content/Update", "Link", "0"},
	{"/org.openoffice.Office.Calc/Content/Update", "Link", "1"},
	// Stored formula results are kept on load (1 = never recalculate; formulas without one
	// are still computed): Excel's results of functions LibreOffice lacks stay readable. A
	// job asks for recalculation explicitly (Job.Recalculate).
	{"/org.openoffice.Office.Calc/Formula/Load", "OOXMLRecalcMode", "1"},
	{"/org.openoffice.Office.Calc/Formula/Load", "ODFRecalcMode", "1"},
	// Anything that still asks for http(s) or ftp goes through a proxy on a port of this
	// host where nothing listens (and, in the isolated network, to no host at all).
	{"/org.openoffice.Inet/Settings", "ooInetProxyType", "1"}, // manual
	{"/org.openoffice.Inet/Settings", "ooInetNoProxy", ""},
	{"/org.openoffice.Inet/Settings", "ooInetHTTPProxyName", "127.0.0.1"},
	{"/org.openoffice.Inet/Settings", "ooInetHTTPProxyPort", "1"},
	{"/org.openoffice.Inet/Settings", "ooInetHTTPSProxyName", "127.0.0.1"},
	{"/org.openoffice.Inet/Settings", "ooInetHTTPSProxyPort", "1"},
	{"/org.openoffice.Inet/Settings", "ooInetFTPProxyName", "127.0.0.1"},
	{"/org.openoffice.Inet/Settings", "ooInetFTPProxyPort", "1"},
}

// writeProfile writes settings into the user profile soffice is started with
// (-env:UserInstallation=file://profile): LibreOffice reads user/registrymodifications.xcu
// on start and keeps it when it creates the rest of the profile.
func writeProfile(profile string, settings []setting) error {
	if len(settings) == 0 {
		return nil
	}
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="UTF-8"?>` + "\n")
	b.WriteString(`<oor:items xmlns:oor="http://openoffice.org/2001/registry" xmlns:xs="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance">` + "\n")
	for _, s := range settings {
		b.WriteString(`<item oor:path="` + html.EscapeString(s.path) + `"><prop oor:name="` + html.EscapeString(s.name) + `" oor:op="fuse">`)
		if s.value == "" {
			b.WriteString(`<value/>`)
		} else {
			b.WriteString(`<value>` + html.EscapeString(s.value) + `</value>`)
		}
		b.WriteString("</prop></item>\n")
	}
	b.WriteString("</oor:items>\n")
	dir := filepath.Join(profile, "user")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dir, "registrymodifications.xcu"), []byte(b.String()), 0o600)
}
