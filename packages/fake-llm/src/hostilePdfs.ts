// PDFs built by the tests and the bench (issue 35), never committed: a document of very many pages (each a
// page object of a few dozen bytes sharing one content stream, so 150,000 pages stay under the
// 25 MB attachment cap) and a flate bomb (one page whose content stream inflates from well under
// a megabyte to hundreds of megabytes of page operators).
import { createDeflate } from 'node:zlib';

/** A PDF of `objects` (object i is `i + 1 0 obj`), with a correct cross-reference table. */
function assemble(objects: (string | (string | Buffer)[])[]): Buffer {
  const parts: Buffer[] = [];
  let length = 0;
  const push = (p: string | Buffer): void => {
    const b = typeof p === 'string' ? Buffer.from(p, 'latin1') : p;
    parts.push(b);
    length += b.length;
  };
  push('%PDF-1.4\n');
  const offsets: number[] = [];
  objects.forEach((o, i) => {
    offsets.push(length);
    push(`${i + 1} 0 obj\n`);
    for (const p of Array.isArray(o) ? o : [o]) push(p);
    push('\nendobj\n');
  });
  const xref = length;
  let table = `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) table += `${String(o).padStart(10, '0')} 00000 n \n`;
  push(`${table}trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`);
  return Buffer.concat(parts);
}

/** `n` pages, each showing "a page" in Helvetica. 150,000 pages: ~14.6 MB. */
export function manyPagesPdf(n: number): Buffer {
  const stream = 'BT /F1 12 Tf 40 100 Td (a page) Tj ET';
  const objects: string[] = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '',
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
  ];
  const kids: string[] = [];
  for (let i = 0; i < n; i++) {
    kids.push(`${5 + i} 0 R`);
    objects.push('<< /Type /Page /Parent 2 0 R /Contents 4 0 R >>');
  }
  objects[1] =
    `<< /Type /Pages /Kids [${kids.join(' ')}] /Count ${n} /MediaBox [0 0 200 200] ` +
    '/Resources << /Font << /F1 3 0 R >> >> >>';
  return assemble(objects);
}

/**
 * One page whose content stream is `mb` MiB of `op` (path operators by default) deflated: 300 MiB
 * of operators is ~0.6 MB on disk. Deflated as a stream, so the test never holds the megabytes.
 */
export async function flateBombPdf(mb: number, op = '0 0 m 1 1 l S\n'): Promise<Buffer> {
  const deflate = createDeflate({ level: 9 });
  const chunks: Buffer[] = [];
  deflate.on('data', (c: Buffer) => chunks.push(c));
  const ended = new Promise((ok) => deflate.on('end', ok));
  const unit = Buffer.from(op.repeat(Math.ceil((1024 * 1024) / op.length)).slice(0, 1024 * 1024), 'latin1');
  for (let i = 0; i < mb; i++) if (!deflate.write(unit)) await new Promise((ok) => deflate.once('drain', ok));
  deflate.end();
  await ended;
  const z = Buffer.concat(chunks);
  return assemble([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 200 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    [`<< /Length ${z.length} /Filter /FlateDecode >>\nstream\n`, z, '\nendstream'],
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}

/** A one-page PDF showing `text`. */
export function onePagePdf(text: string): Buffer {
  const stream = `BT /F1 18 Tf 40 100 Td (${text}) Tj ET`;
  return assemble([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 400 200] /Contents 4 0 R /Resources << /Font << /F1 5 0 R >> >> >>',
    `<< /Length ${stream.length} >>\nstream\n${stream}\nendstream`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>',
  ]);
}
