/**
 * CSV rendering: RFC 4180 quoting, CRLF records, and the formula-injection
 * guard on every cell that a spreadsheet would evaluate.
 */
import { csvField, fromCsv, toCsv } from "../../../api/exports/csv";

describe("csvField", () => {
  test.each([
    ["plain", "plain"],
    ["Comma, Inc.", '"Comma, Inc."'],
    ['say "hi"', '"say ""hi"""'],
    ["two\nlines", '"two\nlines"'],
    ["", ""],
  ])("RFC 4180: %j -> %j", (value, cell) => expect(csvField(value)).toBe(cell));

  test.each([
    ["=1+1", "'=1+1"],
    ["+1", "'+1"],
    ["-1", "'-1"],
    ["@SUM(A1)", "'@SUM(A1)"],
    ["\tcmd", "'\tcmd"],
    ["\rcmd", '"\'\rcmd"'],
    ['=HYPERLINK("http://evil.example","x")', '"\'=HYPERLINK(""http://evil.example"",""x"")"'],
  ])("formula guard: %j -> %j", (value, cell) => expect(csvField(value)).toBe(cell));

  test("only the first character counts; numbers and nulls", () => {
    expect(csvField("a=1")).toBe("a=1");
    expect(csvField(1299)).toBe("1299");
    expect(csvField(null)).toBe("");
    expect(csvField(undefined)).toBe("");
  });
});

test("toCsv: header, one CRLF-terminated record per row, cells by column", () => {
  expect(
    toCsv(
      ["id", "n"],
      [
        { id: "a", n: 1 },
        { n: "x,y", id: "b" },
      ],
    ),
  ).toBe('id,n\r\na,1\r\nb,"x,y"\r\n');
  expect(toCsv(["id"], [])).toBe("id\r\n");
});

test("fromCsv reads back what toCsv wrote, and writing it again changes nothing (the formula guard is not doubled)", () => {
  const rows = [
    { id: "a", n: "x,y", q: 'say "hi"', f: "=HYPERLINK(1)" },
    { id: "b", n: "two\r\nlines", q: "", f: "-5" },
  ];
  const text = toCsv(["id", "n", "q", "f"], rows);
  const back = fromCsv(text);
  expect(back.columns).toEqual(["id", "n", "q", "f"]);
  expect(back.rows).toEqual([
    { id: "a", n: "x,y", q: 'say "hi"', f: "'=HYPERLINK(1)" },
    { id: "b", n: "two\r\nlines", q: "", f: "'-5" },
  ]);
  expect(toCsv(back.columns, back.rows)).toBe(text);
  expect(() => fromCsv('id\r\n"open')).toThrow(/complete record/);
});
