"""Issue 38 item 2: price-list files bounded by bytes, unpacked bytes, rows and columns, the declared sheet
dimension ignored. Before: a 100 KB XLSX declaring A1:XFD20001 took 2.7 GB of memory and 60-71 s (its rows
padded to the declared width), and one 300 MB cell (packed into a small workbook) reached the database."""

from __future__ import annotations

import io
import re
import tracemalloc
import zipfile

from openpyxl import Workbook

from procurement.pricelist.files import Limits, PriceListTooLarge, table_read

HEADER: list[object] = ["Артикул", "Цена", "Остаток", "Срок"]


def _workbook(rows: list[list[object]]) -> bytes:
    book = Workbook()
    sheet = book.active
    assert sheet is not None
    for row in rows:
        sheet.append(row)
    buffer = io.BytesIO()
    book.save(buffer)
    return buffer.getvalue()


def _rewritten(content: bytes, dimension: str, extra_rows: str = "") -> bytes:
    """The workbook with its first sheet's `<dimension ref=…>` set to `dimension` and `extra_rows` of XML
    added at the end of its sheet data."""
    source, out = zipfile.ZipFile(io.BytesIO(content)), io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as target:
        for info in source.infolist():
            data = source.read(info.filename)
            if info.filename == "xl/worksheets/sheet1.xml":
                text = re.sub(r'<dimension ref="[^"]*"\s*/>', f'<dimension ref="{dimension}"/>', data.decode())
                assert f'<dimension ref="{dimension}"/>' in text
                data = text.replace("</sheetData>", extra_rows + "</sheetData>").encode()
            target.writestr(info, data)
    return out.getvalue()


def _peak_mb(call: object) -> tuple[object, float]:
    tracemalloc.start()
    try:
        try:
            result: object = call()  # type: ignore[operator]
        except PriceListTooLarge as exc:
            result = exc
        return result, tracemalloc.get_traced_memory()[1] / 1024 / 1024
    finally:
        tracemalloc.stop()


def test_the_xfd20001_sheet_is_refused_without_materialising_the_grid() -> None:
    far_cells = "".join(f'<row r="{n}"><c r="XFD{n}"><v>1</v></c></row>' for n in range(3, 20002))
    content = _rewritten(_workbook([HEADER, ["rtx-4090", 1, 1, 1]]), "A1:XFD20001", far_cells)
    assert len(content) < 150_000  # ~100 KB, as in the issue
    refused, peak_mb = _peak_mb(lambda: table_read(content, "big.xlsx", Limits()))
    assert isinstance(refused, PriceListTooLarge)
    assert str(refused) == f"row 3 has more than 200 columns (the limit); the file is {len(content)} bytes"
    assert peak_mb < 256  # 20,001 × 16,384 cells padded would be ~2.7 GB; here ~1 MB


def test_a_declared_dimension_alone_changes_nothing() -> None:
    content = _rewritten(_workbook([HEADER, ["rtx-4090", 220000, 5, 7]]), "A1:XFD1048576")
    table, peak_mb = _peak_mb(lambda: table_read(content, "small.xlsx", Limits()))
    assert not isinstance(table, PriceListTooLarge)
    assert table.rows == (tuple(HEADER), ("rtx-4090", 220000, 5, 7))  # type: ignore[attr-defined]
    assert peak_mb < 256


def test_a_row_beyond_the_row_limit_is_refused_without_the_rows_between() -> None:
    far_row = '<row r="1000000"><c r="A1000000" t="inlineStr"><is><t>x</t></is></c></row>'
    content = _rewritten(_workbook([HEADER]), "A1:A1000000", far_row)
    refused, peak_mb = _peak_mb(lambda: table_read(content, "far.xlsx", Limits(max_rows=1000)))
    assert str(refused) == f"the file has more than 1000 rows (the limit); it is {len(content)} bytes"
    assert peak_mb < 256


def test_a_huge_cell_packed_small_is_refused_before_it_is_unpacked() -> None:
    huge = '<row r="2"><c r="B2" t="inlineStr"><is><t>' + "9" * 12_000_000 + "</t></is></c></row>"
    content = _rewritten(_workbook([HEADER]), "A1:D2", huge)  # 12 MB of text in a ~30 KB file
    assert len(content) < 100_000
    limits = Limits(max_bytes=1024 * 1024)
    refused, peak_mb = _peak_mb(lambda: table_read(content, "cell.xlsx", limits))
    assert isinstance(refused, PriceListTooLarge)
    assert re.fullmatch(
        r"the workbook unpacks to \d+ bytes; the limit is 10485760 bytes \(the file is \d+\)", str(refused)
    )
    assert peak_mb < 1  # nothing unpacked


def test_a_long_cell_is_kept_only_to_one_past_the_cell_limit() -> None:
    content = ("Артикул;Цена;Остаток;Срок;Название\nrtx-4090;1;1;1;" + "Ж" * 100_000 + "\n").encode()
    table = table_read(content, "long.csv", Limits())
    assert [len(cell) for cell in table.rows[1]] == [8, 1, 1, 1, 1_001]


def test_a_cell_beyond_the_csv_readers_bound_is_refused_saying_so() -> None:
    content = ("Артикул;Цена;Остаток;Срок;Название\nrtx-4090;1;1;1;" + "Ж" * 3_000_000 + "\n").encode()
    refused, _ = _peak_mb(lambda: table_read(content, "long.csv", Limits()))
    assert str(refused) == f"a cell is longer than 131072 characters; the file is {len(content)} bytes"
