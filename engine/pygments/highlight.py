# Colours code blocks for Papierkram (engine/pygments). Reads a JSON list of
# {"language": ..., "code": ...} from stdin and writes a JSON list of the same length: each
# block's code as HTML spans with Pygments' short token classes, or null when Pygments knows
# no lexer by that name or file extension.
import json
import sys

from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.lexers import get_lexer_by_name, get_lexer_for_filename
from pygments.util import ClassNotFound


def lexer_for(language):
    # Fences name a language ("go"), an alias ("py") or an extension ("yml"), as GitHub
    # reads them. Only the lexers Pygments ships are looked up: no file is read.
    try:
        return get_lexer_by_name(language, stripnl=False)
    except ClassNotFound:
        pass
    try:
        return get_lexer_for_filename("code." + language, stripnl=False)
    except ClassNotFound:
        return None


def main():
    blocks = json.load(sys.stdin)
    formatter = HtmlFormatter(nowrap=True)
    out = []
    for block in blocks:
        lexer = lexer_for(block["language"])
        out.append(None if lexer is None else highlight(block["code"], lexer, formatter))
    json.dump(out, sys.stdout)


main()
