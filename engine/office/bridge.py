# The bridge between Papierkram and one soffice process: it connects over a UNO pipe and
# converts documents one at a time, reading JSON requests from stdin, one per line, and
# answering each with one JSON line on stdout. Started and stopped by engine/office.
import json
import sys
import threading
import time
import traceback

import uno
import unohelper
from com.sun.star.awt import XCallback
from com.sun.star.beans import PropertyValue
from com.sun.star.table import CellAddress
from com.sun.star.connection import NoConnectException

NEVER_EXECUTE = 0  # com.sun.star.document.MacroExecMode
NO_UPDATE = 0      # com.sun.star.document.UpdateDocMode
QUIET_UPDATE = 1   # tests only: links update as far as the profile's settings allow


def prop(name, value):
    p = PropertyValue()
    p.Name = name
    p.Value = value
    return p


def connect(pipe, timeout):
    local = uno.getComponentContext()
    resolver = local.ServiceManager.createInstanceWithContext("com.sun.star.bridge.UnoUrlResolver", local)
    deadline = time.time() + timeout
    while True:
        try:
            return resolver.resolve("uno:pipe,name=%s;urp;StarOffice.ComponentContext" % pipe)
        except NoConnectException:
            if time.time() > deadline:
                raise
            time.sleep(0.05)


def answer(obj):
    sys.stdout.write(json.dumps(obj) + "\n")
    sys.stdout.flush()


def join_sheets(doc):
    """Lays the printed part of every visible sheet, one under the other with an empty row
    between, on one new sheet, and prints only that one: Calc always starts a sheet on a new
    page, so this is how the sheets continue as soon as there is room. Cell contents,
    formats, merges, row heights and the widest column widths carry over; drawings and
    charts stay behind (copyRange moves cells only)."""
    sheets = doc.getSheets()
    sources = []
    for i in range(sheets.getCount()):
        sh = sheets.getByIndex(i)
        if not sh.getPropertyValue("IsVisible"):
            continue
        areas = sh.getPrintAreas()
        if not areas:
            cur = sh.createCursor()
            cur.gotoEndOfUsedArea(False)
            end = cur.getRangeAddress()
            areas = (sh.getCellRangeByPosition(0, 0, end.EndColumn, end.EndRow).getRangeAddress(),)
        sources.append((sh, areas))
    if len(sources) < 2:
        return
    name = "Papierkram"
    while sheets.hasByName(name):
        name += "_"
    sheets.insertNewByName(name, sheets.getCount())
    target = sheets.getByName(name)
    tidx = sheets.getCount() - 1
    first = sources[0][0]
    target.setPropertyValue("PageStyle", first.getPropertyValue("PageStyle"))
    dest = CellAddress()
    dest.Sheet = tidx
    row = 0
    tcols = target.getColumns()
    trows = target.getRows()
    for sh, areas in sources:
        cols = sh.getColumns()
        rows = sh.getRows()
        for a in areas:
            dest.Column = 0
            dest.Row = row
            target.copyRange(dest, a)
            for c in range(a.StartColumn, a.EndColumn + 1):
                w = cols.getByIndex(c).getPropertyValue("Width")
                tc = tcols.getByIndex(c - a.StartColumn)
                if w > tc.getPropertyValue("Width"):
                    tc.setPropertyValue("Width", w)
            # Row by row over UNO is slow; beyond a few thousand rows heights stay optimal.
            for r in range(a.StartRow, a.EndRow + 1 if a.EndRow - a.StartRow < 5000 else a.StartRow):
                src = rows.getByIndex(r)
                dst = trows.getByIndex(row + r - a.StartRow)
                dst.setPropertyValue("Height", src.getPropertyValue("Height"))
                if not src.getPropertyValue("IsVisible"):
                    dst.setPropertyValue("IsVisible", False)
            row += a.EndRow - a.StartRow + 2  # an empty row between the parts
    doc.getCurrentController().setActiveSheet(target)
    for sh, _ in sources:
        sh.setPropertyValue("IsVisible", False)


current_locale = [None]


def set_locale(ctx, locale):
    """Makes locale (BCP 47) LibreOffice's "system" locale, as Tools > Options > Language
    Settings does: number and date formats that follow the system, and the default paper,
    follow it for the documents loaded after. Set only when it changes."""
    if not locale or locale == current_locale[0]:
        return
    cp = ctx.ServiceManager.createInstanceWithContext("com.sun.star.configuration.ConfigurationProvider", ctx)
    ua = cp.createInstanceWithArguments("com.sun.star.configuration.ConfigurationUpdateAccess",
                                        (prop("nodepath", "/org.openoffice.Setup/L10N"),))
    ua.setPropertyValue("ooSetupSystemLocale", locale)
    ua.commitChanges()
    current_locale[0] = locale


def convert(desktop, ctx, req):
    set_locale(ctx, req.get("locale"))
    url = uno.systemPathToFileUrl(req["input"])
    load = (
        prop("Hidden", True),
        prop("MacroExecutionMode", NEVER_EXECUTE),
        prop("UpdateDocMode", QUIET_UPDATE if req.get("updateLinks") else NO_UPDATE),
        prop("Password", ""),  # an encrypted document fails instead of asking
        prop("Silent", True),
    )
    try:
        doc = desktop.loadComponentFromURL(url, "_blank", 0, load)
    except Exception as e:  # IOException, IllegalArgumentException
        msg = str(getattr(e, "Message", "") or e)
        kind = "encrypted" if "password" in msg.lower() or "encrypt" in msg.lower() else "load"
        if "disposed" in msg.lower() or type(e).__name__ == "DisposedException":
            kind = "crashed"
        return {"ok": False, "kind": kind, "error": msg or type(e).__name__}
    if doc is None:
        return {"ok": False, "kind": "load", "error": "the document could not be loaded"}
    try:
        writer = doc.supportsService("com.sun.star.text.TextDocument")
        if doc.supportsService("com.sun.star.sheet.SpreadsheetDocument"):
            if req.get("updateLinks"):
                # Tests only: what Calc does when links may be updated (the user said yes),
                # which its settings then allow or refuse.
                frame = doc.getCurrentController().getFrame()
                dispatcher = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.DispatchHelper", ctx)
                dispatcher.executeDispatch(frame, ".uno:UpdateTableLinks", "", 0, ())
            if req.get("recalculate"):
                doc.calculateAll()  # every formula, also those with stored results
            else:
                # Formulas without a stored result only: Excel's stored results stay, also of
                # functions LibreOffice lacks (they would turn into #NAME?).
                doc.calculate()
            if req.get("joinSheets"):
                join_sheets(doc)
        if writer:
            frame = doc.getCurrentController().getFrame()
            dispatcher = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.DispatchHelper", ctx)
            if req.get("trackChanges") == "visualize":
                doc.setPropertyValue("ShowChanges", True)
            else:
                dispatcher.executeDispatch(frame, ".uno:AcceptAllTrackedChanges", "", 0, ())
            # Fields keep what the document says (a SAVEDATE is the date it was saved, not
            # now); tables of contents and other indexes are rebuilt only when asked.
            if req.get("updateIndexes"):
                try:
                    idx = doc.getDocumentIndexes()
                    for i in range(idx.getCount()):
                        idx.getByIndex(i).update()
                except Exception:
                    pass
        data = [
            prop("ExportBookmarks", True),
            prop("ExportNotes", not req.get("hideComments", False)),
            prop("ExportLinksRelativeFsys", False),
            prop("ConvertOOoTargetToPDFTarget", True),
        ]
        if req.get("pdfa"):
            data.append(prop("SelectPdfVersion", 3))  # PDF/A-3b
            data.append(prop("UseTaggedPDF", True))
        filt = "writer_pdf_Export" if writer else "calc_pdf_Export"
        store = (
            prop("FilterName", filt),
            prop("FilterData", uno.Any("[]com.sun.star.beans.PropertyValue", tuple(data))),
            prop("Overwrite", True),
        )
        if req.get("filter"):  # another output format: ODS, ODT, DOCX, XLSX
            store = (prop("FilterName", req["filter"]), prop("Overwrite", True))
        doc.storeToURL(uno.systemPathToFileUrl(req["output"]), store)
        pages = 0
        try:
            if writer:
                pages = doc.getCurrentController().getPropertyValue("PageCount")
        except Exception:
            pass
        return {"ok": True, "pages": pages}
    except Exception as e:
        msg = str(getattr(e, "Message", "") or e)
        # A dead soffice shows as a disposed bridge: the process, not the document, failed.
        kind = "crashed" if "disposed" in msg.lower() or type(e).__name__ == "DisposedException" else "export"
        return {"ok": False, "kind": kind, "error": msg}
    finally:
        try:
            doc.close(True)
        except Exception:
            try:
                doc.dispose()
            except Exception:
                pass


class OnMainThread(unohelper.Base, XCallback):
    """Runs a conversion on soffice's main thread. LibreOffice 7.4 aborts when a document
    with comments is loaded from a remote UNO thread (their sidebar is built on load); the
    main thread is where --convert-to loads too. URP keeps the thread identity of nested
    calls, so the calls made inside notify() run on that thread."""

    def __init__(self, fn):
        self.fn = fn
        self.done = threading.Event()
        self.result = None

    def notify(self, data):
        try:
            self.result = self.fn()
        except Exception:
            self.result = {"ok": False, "kind": "bridge", "error": traceback.format_exc(limit=3)}
        finally:
            self.done.set()


def main():
    pipe, timeout = sys.argv[1], float(sys.argv[2])
    try:
        ctx = connect(pipe, timeout)
    except Exception as e:
        answer({"ready": False, "error": str(e)})
        return 1
    desktop = ctx.ServiceManager.createInstanceWithContext("com.sun.star.frame.Desktop", ctx)
    main_thread = ctx.ServiceManager.createInstanceWithContext("com.sun.star.awt.AsyncCallback", ctx)
    answer({"ready": True})
    for line in sys.stdin:
        line = line.strip()
        if not line:
            continue
        try:
            req = json.loads(line)
            job = OnMainThread(lambda: convert(desktop, ctx, req))
            main_thread.addCallback(job, None)
            # No time limit here: the Go side kills soffice and this bridge when a
            # conversion runs over its limit or soffice dies.
            job.done.wait()
            res = job.result
        except Exception:
            res = {"ok": False, "kind": "bridge", "error": traceback.format_exc(limit=3)}
        answer(res)
    return 0


if __name__ == "__main__":
    sys.exit(main())
