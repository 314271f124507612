// The workbench: every action is a call to the service's own API with the key the user
// entered, kept in this tab's sessionStorage only (never in a URL, never in localStorage).

const texts = {
  de: {
    language: "Sprache", signin: "Anmelden", apiKey: "API-Schlüssel", signinButton: "Anmelden",
    keyHint: "Der Schlüssel bleibt nur in diesem Tab und wird nie in eine Adresse geschrieben.",
    account: "Konto", plan: "Tarif", usage: "Umwandlungen diesen Monat", signout: "Abmelden", areas: "Bereiche",
    tabEinvoice: "E-Rechnungen", tabConvert: "Umwandeln", tabPdf: "PDF-Werkzeuge", tabReceipts: "Belege",
    einvoiceFile: "XRechnung oder ZUGFeRD (XML oder PDF)", check: "Prüfen", view: "Ansehen",
    convertFile: "Datei (HTML, Markdown, Word, Excel)", paper: "Papier", orientation: "Ausrichtung",
    portrait: "Hochformat", landscape: "Querformat", toPdf: "In PDF umwandeln",
    merge: "PDFs zusammenfügen", mergeFiles: "PDFs (Reihenfolge unten ändern)", mergeButton: "Zusammenfügen",
    receiptFiles: "Belege (Bilder oder PDFs)", extract: "Auslesen",
    receiptTable: "Ausgelesene Belege (unsichere Felder sind markiert)", file: "Datei", date: "Datum",
    issuer: "Aussteller", gross: "Brutto", vat: "USt", currency: "Währung",
    exportCsv: "Als CSV exportieren", exportXlsx: "Als XLSX exportieren",
    valid: "Gültig: keine Regel mit Fehlerstufe verletzt.", invalid: "Ungültig: {n} Fehler.",
    fatal: "Fehler", warning: "Warnungen", information: "Hinweise", working: "Bitte warten …",
    download: "Herunterladen", pages: "{n} Seiten", page: "Seite {n}", up: "nach oben", down: "nach unten",
    unlimited: "unbegrenzt", of: "von", badKey: "Der Schlüssel wurde nicht angenommen.",
    invoiceView: "Ansicht der Rechnung", at: "an", done: "{n} von {total} ausgelesen",
    asUbl: "Als UBL herunterladen", asCii: "Als CII herunterladen", hybrid: "Hybrid-PDF (ZUGFeRD) erstellen",
    einvoiceHint: "Aus einem ZUGFeRD-PDF wird mit UBL oder CII eine XRechnung; aus einer XML-Rechnung wird ein ZUGFeRD-PDF.",
    source: "XML-Quelltext", line: "Zeile {n}", pdfOnlyXml: "Ein Hybrid-PDF entsteht aus einer XML-Rechnung.",
    onePdf: "Eine PDF bearbeiten", action: "Aktion", opSplit: "Teilen", opRotate: "Drehen", opMetadata: "Metadaten lesen",
    opMetadataSet: "Metadaten setzen", opPdfa: "In PDF/A-3b umwandeln", opSign: "Signieren", opVerify: "Signaturen prüfen",
    pagesSpec: "Seiten (z. B. 1-3,7; leer: alle)", degrees: "Drehung im Uhrzeigersinn", title: "Titel", author: "Autor",
    subject: "Betreff", storedCert: "Gespeichertes Zertifikat", uploadCert: "– Zertifikat hochladen –",
    certFile: "Zertifikat (PKCS#12, .p12 oder .pfx)", certPassword: "Passwort des Zertifikats (wird nicht gespeichert)",
    reason: "Grund", run: "Ausführen", part: "Teil {n}: Seiten {pages}", signed: "Signiert", notSigned: "Keine Signatur.",
    sigValid: "Alle Signaturen sind unversehrt.", sigInvalid: "Mindestens eine Signatur ist nicht gültig.",
    signer: "Unterzeichner", verdict: "Ergebnis", signingTime: "Zeitpunkt", needCert: "Bitte ein Zertifikat wählen oder hochladen.",
    exportDatev: "DATEV-Buchungsstapel exportieren", chart: "Kontenrahmen",
    keywords: "Stichwörter", creator: "Erstellt mit", producer: "PDF erzeugt von", creationDate: "Erstellt am",
    modDate: "Geändert am", pdfVersion: "PDF-Version", encrypted: "Verschlüsselt", fieldPages: "Seiten",
  },
  en: {
    language: "Language", signin: "Sign in", apiKey: "API key", signinButton: "Sign in",
    keyHint: "The key stays in this tab only and is never written into an address.",
    account: "Account", plan: "Plan", usage: "Conversions this month", signout: "Sign out", areas: "Areas",
    tabEinvoice: "E-invoices", tabConvert: "Convert", tabPdf: "PDF tools", tabReceipts: "Receipts",
    einvoiceFile: "XRechnung or ZUGFeRD (XML or PDF)", check: "Check", view: "View",
    convertFile: "File (HTML, Markdown, Word, Excel)", paper: "Paper", orientation: "Orientation",
    portrait: "Portrait", landscape: "Landscape", toPdf: "Convert to PDF",
    merge: "Merge PDFs", mergeFiles: "PDFs (change the order below)", mergeButton: "Merge",
    receiptFiles: "Receipts (images or PDFs)", extract: "Extract",
    receiptTable: "Extracted receipts (uncertain fields are marked)", file: "File", date: "Date",
    issuer: "Issuer", gross: "Gross", vat: "VAT", currency: "Currency",
    exportCsv: "Export as CSV", exportXlsx: "Export as XLSX",
    valid: "Valid: no fatal rule failed.", invalid: "Invalid: {n} error(s).",
    fatal: "Errors", warning: "Warnings", information: "Notes", working: "Please wait …",
    download: "Download", pages: "{n} pages", page: "Page {n}", up: "up", down: "down",
    unlimited: "unlimited", of: "of", badKey: "The key was not accepted.",
    invoiceView: "View of the invoice", at: "at", done: "{n} of {total} extracted",
    asUbl: "Download as UBL", asCii: "Download as CII", hybrid: "Create a hybrid PDF (ZUGFeRD)",
    einvoiceHint: "A ZUGFeRD PDF becomes an XRechnung in UBL or CII; an XML invoice becomes a ZUGFeRD PDF.",
    source: "XML source", line: "line {n}", pdfOnlyXml: "A hybrid PDF is made from an XML invoice.",
    onePdf: "Work on one PDF", action: "Action", opSplit: "Split", opRotate: "Rotate", opMetadata: "Read metadata",
    opMetadataSet: "Set metadata", opPdfa: "Convert to PDF/A-3b", opSign: "Sign", opVerify: "Verify signatures",
    pagesSpec: "Pages (e.g. 1-3,7; empty: all)", degrees: "Clockwise rotation", title: "Title", author: "Author",
    subject: "Subject", storedCert: "Stored certificate", uploadCert: "– upload a certificate –",
    certFile: "Certificate (PKCS#12, .p12 or .pfx)", certPassword: "Certificate password (never stored)",
    reason: "Reason", run: "Run", part: "Part {n}: pages {pages}", signed: "Signed", notSigned: "No signature.",
    sigValid: "Every signature is intact.", sigInvalid: "At least one signature is not valid.",
    signer: "Signer", verdict: "Verdict", signingTime: "Time", needCert: "Choose or upload a certificate.",
    exportDatev: "Export DATEV booking batch", chart: "Chart of accounts",
    keywords: "Keywords", creator: "Creator", producer: "Producer", creationDate: "Created", modDate: "Modified",
    pdfVersion: "PDF version", encrypted: "Encrypted", fieldPages: "Pages",
  },
};

let lang = sessionStorage.getItem("lang") || (navigator.language || "de").slice(0, 2);
if (!texts[lang]) lang = "de";
const t = (k, vars = {}) => (texts[lang][k] || k).replace(/\{(\w+)\}/g, (_, v) => vars[v]);
const $ = (id) => document.getElementById(id);
const el = (tag, attrs = {}, ...kids) => {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (k === "text") e.textContent = v; else e.setAttribute(k, v);
  }
  e.append(...kids);
  return e;
};

function translate() {
  document.documentElement.lang = lang;
  for (const e of document.querySelectorAll("[data-t]")) e.textContent = t(e.dataset.t);
  for (const e of document.querySelectorAll("[data-t-aria]")) e.setAttribute("aria-label", t(e.dataset.tAria));
  $("einvoice-frame").title = t("invoiceView");
  $("lang").value = lang;
}

// api calls the service with the key; a problem answer becomes an Error with its detail.
async function api(path, init = {}) {
  const headers = new Headers(init.headers || {});
  headers.set("X-API-Key", sessionStorage.getItem("key") || "");
  const res = await fetch(path, { ...init, headers });
  if (!res.ok) {
    let detail = res.status + " " + res.statusText;
    try { const p = await res.json(); detail = (p.detail || p.title || detail) + (p.code ? " (" + p.code + ")" : ""); } catch {}
    throw new Error(detail);
  }
  return res;
}

function busy(out, on) {
  out.setAttribute("aria-busy", on ? "true" : "false");
  if (on) out.replaceChildren(el("p", { text: t("working") }));
}

function fail(out, err) {
  out.setAttribute("aria-busy", "false");
  out.replaceChildren(el("p", { class: "problem", role: "alert", text: err.message }));
}

function form(name, file) {
  const f = new FormData();
  f.append(name, file, file.name);
  return f;
}

function downloadLink(blob, name) {
  return el("a", { href: URL.createObjectURL(blob), download: name, text: t("download") + ": " + name });
}

// --- sign in ---------------------------------------------------------------------------
async function showAccount() {
  const who = await (await api("/api/auth/validate")).json();
  const c = who.conversions || {};
  $("plan").textContent = who.plan;
  $("usage").textContent = c.limit < 0 ? c.used + " (" + t("unlimited") + ")" : c.used + " " + t("of") + " " + c.limit;
  $("signin").hidden = true;
  $("account").hidden = false;
  show("einvoice");
}

function show(area) {
  for (const b of document.querySelectorAll(".tab")) b.setAttribute("aria-pressed", String(b.getAttribute("aria-controls") === area));
  for (const s of document.querySelectorAll(".area")) s.hidden = s.id !== area;
}

$("signin-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  sessionStorage.setItem("key", $("key").value.trim());
  $("key").value = "";
  try { await showAccount(); } catch (err) {
    sessionStorage.removeItem("key");
    const p = $("signin").querySelector(".problem") || $("signin").appendChild(el("p", { class: "problem", role: "alert" }));
    p.textContent = t("badKey") + " " + err.message;
  }
});
$("signout").addEventListener("click", () => { sessionStorage.removeItem("key"); location.reload(); });
for (const b of document.querySelectorAll(".tab")) b.addEventListener("click", () => show(b.getAttribute("aria-controls")));
$("lang").addEventListener("change", () => { lang = $("lang").value; sessionStorage.setItem("lang", lang); translate(); });

// --- e-invoices --------------------------------------------------------------------------
// ruleList groups the failed rules by severity; a rule with a line links to it in the XML
// source shown below the verdict.
function ruleList(results, linked) {
  const failed = results.filter((r) => !r.passed);
  const out = [];
  for (const sev of ["fatal", "warning", "information"]) {
    const rs = failed.filter((r) => r.severity === sev);
    if (!rs.length) continue;
    out.push(el("h3", { class: "sev-" + sev, text: t(sev) + " (" + rs.length + ")" }));
    out.push(el("ul", { class: "rules" }, ...rs.map((r) => {
      const where = [el("code", { text: t("at") + " " + (r.location || "") })];
      if (linked && r.line) where.push(" ", el("a", { href: "#xml-L" + r.line, "data-line": r.line, text: t("line", { n: r.line }) }));
      return el("li", { "data-rule": r.id }, el("strong", { text: r.id }), " " + r.message + " ", ...where);
    })));
  }
  return out;
}

// showSource puts the XML into the page line by line, each line an anchor the rules link to.
function showSource(text) {
  const lines = text.split(/\r?\n/).slice(0, 50000);
  $("einvoice-xml").replaceChildren(...lines.map((l, i) => el("span", { id: "xml-L" + (i + 1), class: "line", "data-n": i + 1, text: l + "\n" })));
  $("einvoice-source").hidden = false;
}

document.addEventListener("click", (ev) => {
  const a = ev.target.closest && ev.target.closest("a[data-line]");
  if (!a) return;
  ev.preventDefault();
  $("einvoice-source").open = true;
  for (const m of document.querySelectorAll(".line.hit")) m.classList.remove("hit");
  const line = $("xml-L" + a.dataset.line);
  if (line) { line.classList.add("hit"); line.scrollIntoView({ block: "center" }); }
});

const isPDF = (file) => file.name.toLowerCase().endsWith(".pdf") || file.type === "application/pdf";

$("einvoice-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const out = $("einvoice-out"), file = $("einvoice-file").files[0];
  busy(out, true);
  $("einvoice-source").hidden = true;
  $("einvoice-frame").hidden = true;
  try {
    const pdf = isPDF(file);
    const r = await (await api(pdf ? "/api/zugferd/validate" : "/api/xrechnung/validate", { method: "POST", body: form("file", file) })).json();
    const results = pdf ? [...(r.xml ? r.xml.results : []), ...r.pdf.results] : r.results;
    const errors = results.filter((x) => !x.passed && x.severity === "fatal").length;
    out.replaceChildren(el("p", { class: "verdict " + (r.valid ? "ok" : "bad"), id: "verdict", "data-valid": String(r.valid),
      text: r.valid ? t("valid") : t("invalid", { n: errors }) }), ...ruleList(results, !pdf));
    if (!pdf) showSource(await file.text());
    out.setAttribute("aria-busy", "false");
  } catch (err) { fail(out, err); }
});

$("einvoice-view").addEventListener("click", async () => {
  const out = $("einvoice-out"), file = $("einvoice-file").files[0];
  if (!file) { $("einvoice-file").focus(); return; }
  busy(out, true);
  try {
    const html = await (await api("/api/xrechnung/visualize?language=" + lang, { method: "POST", body: form("file", file) })).blob();
    const frame = $("einvoice-frame");
    frame.src = URL.createObjectURL(new Blob([html], { type: "text/html" }));
    frame.hidden = false;
    out.replaceChildren();
    out.setAttribute("aria-busy", "false");
  } catch (err) { fail(out, err); }
});

// einvoiceAs turns the chosen invoice into another form: an XML into UBL, CII or a hybrid
// PDF; a ZUGFeRD PDF into an XRechnung in UBL or CII.
async function einvoiceAs(target) {
  const out = $("einvoice-result"), file = $("einvoice-file").files[0];
  if (!file) { $("einvoice-file").focus(); return; }
  busy(out, true);
  try {
    const stem = file.name.replace(/\.[^.]+$/, "");
    let res, name;
    if (isPDF(file)) {
      if (target === "hybrid") throw new Error(t("pdfOnlyXml"));
      const f = form("document", file);
      f.append("targetSyntax", target.toUpperCase());
      res = await api("/v1/convert/zugferd-to-xrechnung", { method: "POST", body: f });
      name = stem + "-xrechnung-" + target + ".xml";
    } else if (target === "hybrid") {
      res = await api("/api/zugferd/create?language=" + lang, { method: "POST", body: form("file", file) });
      name = stem + ".pdf";
    } else {
      const text = await file.text();
      const isCII = /CrossIndustryInvoice/.test(text.slice(0, 4096));
      if ((target === "cii") === isCII) res = new Response(file); // already in that syntax
      else res = await api("/api/xrechnung/transform?targetFormat=" + target.toUpperCase(), { method: "POST", body: form("file", file) });
      name = stem + "-" + target + ".xml";
    }
    const blob = await res.blob();
    const link = downloadLink(blob, name);
    link.id = "einvoice-" + target + "-link";
    out.replaceChildren(el("p", {}, link));
    out.setAttribute("aria-busy", "false");
  } catch (err) { fail(out, err); }
}
for (const target of ["ubl", "cii", "hybrid"]) $("einvoice-" + target).addEventListener("click", () => einvoiceAs(target));

// --- convert -----------------------------------------------------------------------------
async function toPDF(file) {
  const name = file.name.toLowerCase();
  const page = { format: $("convert-format").value, orientation: $("convert-orientation").value };
  if (/\.(html?|md|markdown)$/.test(name)) {
    const text = await file.text();
    const md = /\.(md|markdown)$/.test(name);
    const body = md ? { markdown: text, format: page.format } : { html: text, ...page };
    return (await api(md ? "/v1/convert/markdown-to-pdf" : "/v1/convert/html-to-pdf",
      { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) })).blob();
  }
  const excel = /\.(xlsx|xls|ods)$/.test(name);
  const f = form("document", file);
  if (excel) { f.append("orientation", page.orientation); f.append("paperSize", page.format); f.append("locale", lang === "de" ? "de-DE" : "en-GB"); }
  else f.append("locale", lang === "de" ? "de-DE" : "en-GB");
  return (await api(excel ? "/v1/convert/excel-to-pdf" : "/v1/convert/word-to-pdf", { method: "POST", body: f })).blob();
}

// previews shows the first pages of pdf (at most four) and returns its page count.
async function previews(pdf, into) {
  const file = new File([pdf], "out.pdf", { type: "application/pdf" });
  const n = (await (await api("/api/preview/page-count", { method: "POST", body: form("file", file) })).json()).pages;
  const r = await (await api("/api/preview/pages?dpi=48&pages=1-" + Math.min(n, 4), { method: "POST", body: form("file", file) })).json();
  into.dataset.pages = n;
  into.replaceChildren(...r.images.map((im) => el("img", { src: "data:" + im.contentType + ";base64," + im.file, alt: t("page", { n: im.page }), "data-page": im.page })));
  return n;
}

$("convert-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const out = $("convert-out"), file = $("convert-file").files[0];
  busy(out, true);
  $("convert-pages").replaceChildren();
  try {
    const pdf = await toPDF(file);
    const n = await previews(pdf, $("convert-pages"));
    out.replaceChildren(el("p", {}, t("pages", { n }) + " · ", downloadLink(pdf, file.name.replace(/\.[^.]+$/, "") + ".pdf")));
    out.setAttribute("aria-busy", "false");
  } catch (err) { fail(out, err); }
});

// --- merge ---------------------------------------------------------------------------------
let mergeFiles = [];
function drawMergeList() {
  const list = $("merge-list");
  list.replaceChildren(...mergeFiles.map((f, i) => {
    const li = el("li", { draggable: "true", "data-index": i }, f.name + " ");
    const up = el("button", { type: "button", "aria-label": t("up") + ": " + f.name, text: "↑" });
    const down = el("button", { type: "button", "aria-label": t("down") + ": " + f.name, text: "↓" });
    up.addEventListener("click", () => move(i, i - 1));
    down.addEventListener("click", () => move(i, i + 1));
    li.append(up, down);
    li.addEventListener("dragstart", (e) => e.dataTransfer.setData("text/plain", String(i)));
    li.addEventListener("dragover", (e) => e.preventDefault());
    li.addEventListener("drop", (e) => { e.preventDefault(); move(Number(e.dataTransfer.getData("text/plain")), i); });
    return li;
  }));
}
function move(from, to) {
  if (to < 0 || to >= mergeFiles.length || from === to) return;
  const [f] = mergeFiles.splice(from, 1);
  mergeFiles.splice(to, 0, f);
  drawMergeList();
}
$("merge-files").addEventListener("change", () => { mergeFiles = [...$("merge-files").files]; drawMergeList(); });
$("merge-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const out = $("merge-out");
  busy(out, true);
  try {
    const f = new FormData();
    for (const file of mergeFiles) f.append("files", file, file.name);
    const pdf = await (await api("/api/pdf-tools/merge", { method: "POST", body: f })).blob();
    const count = await (await api("/api/preview/page-count", { method: "POST", body: form("file", new File([pdf], "merged.pdf")) })).json();
    out.replaceChildren(el("p", { id: "merge-result", "data-pages": count.pages }, t("pages", { n: count.pages }) + " · ", downloadLink(pdf, "zusammengefuegt.pdf")));
    out.setAttribute("aria-busy", "false");
  } catch (err) { fail(out, err); }
});

// --- one PDF: split, rotate, metadata, PDF/A, sign, verify ------------------------------
function showOptions() {
  const op = $("pdfone-op").value;
  for (const d of document.querySelectorAll("#pdfone-form .opt")) d.hidden = !d.dataset.for.split(" ").includes(op);
  if (op === "sign") loadCertificates();
}
$("pdfone-op").addEventListener("change", showOptions);

async function loadCertificates() {
  try {
    const list = await (await api("/api/signatures/certificates")).json();
    const sel = $("pdfone-certname");
    sel.replaceChildren(sel.options[0], ...list.map((c) => el("option", { value: c.name, text: c.name + (c.subject ? " (" + c.subject + ")" : "") })));
  } catch { /* the upload field still works */ }
}

function base64(file) {
  return new Promise((resolve, reject) => {
    const r = new FileReader();
    r.onload = () => resolve(String(r.result).replace(/^data:[^,]*,/, ""));
    r.onerror = () => reject(r.error);
    r.readAsDataURL(file);
  });
}

function fromBase64(b64, type) {
  const bin = atob(b64), bytes = new Uint8Array(bin.length);
  for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
  return new Blob([bytes], { type });
}

function facts(obj) {
  const dl = el("dl", { class: "facts" });
  for (const [k, v] of Object.entries(obj)) {
    if (v === null || v === undefined || v === "" || typeof v === "object") continue;
    dl.append(el("dt", { text: t(k === "pages" ? "fieldPages" : k) }), el("dd", { "data-key": k, text: String(v) }));
  }
  return dl;
}

function query(params) {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) if (v) q.set(k, v);
  const s = q.toString();
  return s ? "?" + s : "";
}

$("pdfone-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const out = $("pdfone-out"), file = $("pdfone-file").files[0], op = $("pdfone-op").value;
  const stem = file.name.replace(/\.[^.]+$/, "");
  const pages = $("pdfone-pages").value.trim();
  busy(out, true);
  $("pdfone-pages-out").replaceChildren();
  const pdfResult = async (res, suffix) => {
    const pdf = await res.blob();
    const n = await previews(pdf, $("pdfone-pages-out"));
    const link = downloadLink(pdf, stem + "-" + suffix + ".pdf");
    link.id = "pdfone-link";
    out.replaceChildren(el("p", { id: "pdfone-result", "data-pages": n }, t("pages", { n }) + " · ", link));
  };
  try {
    switch (op) {
      case "split": {
        const r = await (await api("/api/pdf-tools/split" + query({ pages }), { method: "POST", body: form("file", file) })).json();
        out.replaceChildren(el("ol", { id: "pdfone-parts", "data-count": r.count }, ...r.parts.map((p, i) =>
          el("li", {}, downloadLink(fromBase64(p.file, "application/pdf"), stem + "-" + p.pages + ".pdf"), " (" + t("part", { n: i + 1, pages: p.pages }) + ")"))));
        break;
      }
      case "rotate":
        await pdfResult(await api("/api/pdf-tools/rotate" + query({ degrees: $("pdfone-degrees").value, pages }), { method: "POST", body: form("file", file) }), "rotated");
        break;
      case "metadata": {
        const m = await (await api("/api/pdf-tools/metadata", { method: "POST", body: form("file", file) })).json();
        out.replaceChildren(facts(m));
        break;
      }
      case "metadata-set":
        await pdfResult(await api("/api/pdf-tools/metadata/set" + query({ title: $("pdfone-title").value, author: $("pdfone-author").value, subject: $("pdfone-subject").value }),
          { method: "POST", body: form("file", file) }), "metadata");
        break;
      case "pdfa":
        await pdfResult(await api("/api/pdf-tools/pdfa" + query({ title: $("pdfone-title").value, author: $("pdfone-author").value }), { method: "POST", body: form("file", file) }), "pdfa");
        break;
      case "sign": {
        // The password travels in the JSON body only, and the field is emptied at once.
        const body = { file: await base64(file), password: $("pdfone-password").value, reason: $("pdfone-reason").value || undefined };
        $("pdfone-password").value = "";
        const stored = $("pdfone-certname").value, upload = $("pdfone-cert").files[0];
        if (stored) body.certificateName = stored;
        else if (upload) body.certificate = await base64(upload);
        else throw new Error(t("needCert"));
        await pdfResult(await api("/api/signatures/sign", { method: "POST", headers: { "Content-Type": "application/json" }, body: JSON.stringify(body) }), "signed");
        break;
      }
      case "verify": {
        const v = await (await api("/api/signatures/verify", { method: "POST", body: form("file", file) })).json();
        const head = el("p", { id: "pdfone-verdict", class: "verdict " + (v.signed && v.valid ? "ok" : "bad"), "data-valid": String(v.signed && v.valid),
          text: !v.signed ? t("notSigned") : v.valid ? t("sigValid") : t("sigInvalid") });
        out.replaceChildren(head, ...v.signatures.map((sig) => facts({ signer: sig.signer.name, verdict: sig.verdict, signingTime: sig.signingTime, reason: sig.reason })));
        break;
      }
    }
    out.setAttribute("aria-busy", "false");
  } catch (err) { fail(out, err); }
});
showOptions();

// --- receipts ------------------------------------------------------------------------------
let receipts = [];
const columns = ["date", "issuer", "gross", "vat", "currency"];
function drawReceipts() {
  const body = $("receipts-table").tBodies[0];
  body.replaceChildren(...receipts.map((r, i) => el("tr", {}, el("th", { scope: "row", text: r.filename || "" }),
    ...columns.map((key) => {
      const input = el("input", { value: r.data[key] || "", "aria-label": t(key) + " (" + (r.filename || i + 1) + ")", "data-field": key });
      // The service names what it is not sure of, and why: the reason is the field's tooltip.
      const unsure = (r.uncertainFields || []).find((u) => u.path === "data." + key);
      if (unsure) { input.classList.add("uncertain"); input.title = unsure.reason; }
      input.addEventListener("change", () => { r.data[key] = input.value.trim(); });
      return el("td", {}, input);
    }))));
  $("receipts-table").hidden = receipts.length === 0;
  for (const id of ["receipts-csv", "receipts-xlsx", "receipts-datev", "receipts-datev-options"]) $(id).hidden = receipts.length === 0;
}
$("receipts-form").addEventListener("submit", async (ev) => {
  ev.preventDefault();
  const out = $("receipts-out"), files = [...$("receipts-files").files], bar = $("receipts-progress");
  receipts = [];
  bar.hidden = false; bar.max = files.length; bar.value = 0;
  busy(out, true);
  const problems = [];
  for (const file of files) {
    try { receipts.push(await (await api("/api/receipts/extract", { method: "POST", body: form("file", file) })).json()); }
    catch (err) { problems.push(el("p", { class: "problem", role: "alert", text: file.name + ": " + err.message })); }
    bar.value += 1;
    out.replaceChildren(el("p", { text: t("done", { n: bar.value, total: files.length }) }), ...problems);
  }
  out.setAttribute("aria-busy", "false");
  bar.hidden = true;
  drawReceipts();
});
async function exportReceipts(ext) {
  const out = $("receipts-export");
  busy(out, true);
  try {
    // German Excel opens a CSV in columns only with semicolons, and reads amounts with a comma.
    const opts = ext === "datev" ? { chart: $("receipts-chart").value } : ext === "csv" && lang === "de" ? { delimiter: ";", decimalSeparator: "," } : {};
    const path = "/api/receipts/export/" + ext + query(opts);
    const blob = await (await api(path, { method: "POST", headers: { "Content-Type": "application/json" },
      body: JSON.stringify(receipts.map((r) => r.data)) })).blob();
    const link = downloadLink(blob, ext === "datev" ? "EXTF_Buchungsstapel.csv" : "belege." + ext);
    link.id = "receipts-" + ext + "-link";
    if (ext === "csv") link.dataset.csv = await blob.text();
    out.replaceChildren(el("p", {}, link));
    out.setAttribute("aria-busy", "false");
  } catch (err) { fail(out, err); }
}
$("receipts-csv").addEventListener("click", () => exportReceipts("csv"));
$("receipts-xlsx").addEventListener("click", () => exportReceipts("xlsx"));
$("receipts-datev").addEventListener("click", () => exportReceipts("datev"));

translate();
if (sessionStorage.getItem("key")) showAccount().catch(() => sessionStorage.removeItem("key"));
