"""A tiny PDF writer for reader tests: Courier 12 pt (7.2 pt per character), text placed at
exact x/y, so a test states the layout it reads."""

from __future__ import annotations

CHAR = 7.2
TOP = 720.0  # baseline of the first body line
ACTION, DIALOGUE, PAREN, CUE, RIGHT = 108.0, 180.0, 223.2, 252.0, 540.0


def _escape(text: str) -> str:
    return text.replace("\\", "\\\\").replace("(", "\\(").replace(")", "\\)")


def make_pdf(pages: list[list[tuple[float, float, str]]], *, drawings: bool = False) -> bytes:
    """A PDF whose pages hold the given (x, y, text) runs; `drawings` adds a rectangle."""
    objects: list[bytes] = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"",  # pages, filled in below
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Courier >>",
    ]
    kids = []
    for runs in pages:
        ops = [f"BT /F1 12 Tf 1 0 0 1 {x:.2f} {y:.2f} Tm ({_escape(t)}) Tj ET" for x, y, t in runs]
        if drawings:
            ops.append("0 0 0 RG 100 100 200 300 re S")
        stream = "\n".join(ops).encode("latin-1")
        objects.append(b"<< /Length %d >>\nstream\n%s\nendstream" % (len(stream), stream))
        content_id = len(objects)
        objects.append(
            b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] "
            b"/Resources << /Font << /F1 3 0 R >> >> /Contents %d 0 R >>" % content_id
        )
        kids.append(f"{len(objects)} 0 R")
    objects[1] = f"<< /Type /Pages /Kids [{' '.join(kids)}] /Count {len(kids)} >>".encode()
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % off for off in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (
        len(objects) + 1, xref
    )
    return bytes(out)


class Page:
    """Lays out one page line by line: `line()` is the next line, `blank()` skips one."""

    def __init__(self, number: int | None = None, header: str | None = None):
        self.runs: list[tuple[float, float, str]] = []
        self.y = TOP
        if header:
            self.runs.append((ACTION, 756.0, header))
        if number is not None:
            label = f"{number}."
            self.runs.append((RIGHT - CHAR * len(label), 756.0, label))

    def line(self, x: float, text: str, *extra: tuple[float, str]) -> Page:
        self.runs.append((x, self.y, text))
        self.runs.extend((ex, self.y, et) for ex, et in extra)
        self.y -= 12
        return self

    def blank(self) -> Page:
        self.y -= 12
        return self

    def right(self, text: str) -> Page:
        return self.line(RIGHT - CHAR * len(text), text)

    def centered(self, text: str) -> Page:
        return self.line((ACTION + RIGHT) / 2 - CHAR * len(text) / 2, text)  # text column
