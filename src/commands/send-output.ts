// smq send's ids, written batch by batch as each one is stored, so stdout lists what was
// sent even when a later batch fails or the process is killed. The same text as
// Printer.list gives for the whole list (NDJSON lines, one JSON array, a right-aligned table).
import type { MessageId } from '../backends/types.js';
import type { OutStream } from '../output/io.js';
import { toJsonLine } from '../output/json.js';
import type { OutputFormat } from '../output/printer.js';

export interface IdWriter {
  /** Writes ids that are stored. */
  write(ids: readonly MessageId[]): void;
  /** Ends the list (closes the JSON array), also after a failure: stdout stays one document. */
  end(): void;
}

export function idWriter(out: OutStream, format: OutputFormat): IdWriter {
  let count = 0;
  // table: the width of the first batch's widest id (later ids rarely grow by a digit).
  let width = 0;
  return {
    write(ids) {
      if (ids.length === 0) return;
      let text = '';
      if (format === 'ndjson') {
        for (const id of ids) text += toJsonLine({ id: id.toString() });
      } else if (format === 'json') {
        // As JSON.stringify(list, null, 2) lays out [{ "id": "1" }, ...].
        for (const id of ids) text += `${count++ === 0 ? '[\n' : ',\n'}  {\n    "id": "${id.toString()}"\n  }`;
      } else {
        if (count === 0) {
          width = Math.max(2, ...ids.map((id) => id.toString().length));
          text += 'ID'.padStart(width) + '\n';
        }
        for (const id of ids) text += id.toString().padStart(width) + '\n';
      }
      count += format === 'json' ? 0 : ids.length;
      out.write(text);
    },
    end() {
      if (format === 'json') out.write(count === 0 ? '[]\n' : '\n]\n');
    },
  };
}
