// Writes a command's result in the chosen format: an aligned table for people, one JSON
// document, or one NDJSON object per line.
import type { Io } from './io.js';
import { toJsonDocument, toJsonLine } from './json.js';
import { renderTable } from './table.js';
import type { TableView } from './records.js';
import { escapeControl } from '../text/escape.js';

export const OUTPUT_FORMATS = ['table', 'json', 'ndjson'] as const;
export type OutputFormat = (typeof OUTPUT_FORMATS)[number];

/** table on a terminal, ndjson when stdout is piped. */
export function defaultFormat(io: Io): OutputFormat {
  return io.stdout.isTTY ? 'table' : 'ndjson';
}

export class Printer {
  constructor(
    readonly io: Io,
    readonly format: OutputFormat,
  ) {}

  /** A list: table rows, a JSON array, or one NDJSON line per item. */
  list<T>(items: readonly T[], view: TableView<T>, record: (item: T) => unknown, emptyNote?: string): void {
    if (this.format === 'json') {
      this.io.stdout.write(toJsonDocument(items.map(record)));
    } else if (this.format === 'ndjson') {
      for (const item of items) this.io.stdout.write(toJsonLine(record(item)));
    } else if (items.length === 0) {
      // Nothing on stdout, so `| wc -l` stays honest; the note is for the person watching.
      if (emptyNote) this.note(emptyNote);
    } else {
      const maxWidth = this.io.stdout.isTTY ? this.io.stdout.columns : undefined;
      this.io.stdout.write(renderTable(view.columns, items.map(view.row), { maxWidth }));
    }
  }

  /** One result: a sentence on a table, otherwise one JSON object (also for ndjson). */
  result(record: unknown, sentence: string): void {
    if (this.format === 'table') this.io.stdout.write(escapeControl(sentence) + '\n');
    else if (this.format === 'json') this.io.stdout.write(toJsonDocument(record));
    else this.io.stdout.write(toJsonLine(record));
  }

  /** A remark for people (stderr), never part of the data on stdout. */
  note(text: string): void {
    this.io.stderr.write(escapeControl(text) + '\n');
  }
}
