// How top shares a short terminal out: the footer and a minimal body stay, the header gives way.
import { describe, expect, test } from 'vitest';
import { topLayout } from '../../src/ui/model/layout.js';

describe('topLayout', () => {
  test('a tall terminal: all four header lines, the rest is body', () => {
    expect(topLayout(40, undefined)).toEqual({
      header: ['title', 'summary', 'health', 'alert'],
      bodyHeight: 33,
      shownBody: 33,
      promptLines: 1,
    });
  });

  test('a short one: the spacer goes first, then the title, then health; the summary stays', () => {
    expect(topLayout(9, undefined).header).toEqual(['title', 'summary', 'health']);
    expect(topLayout(8, undefined).header).toEqual(['summary', 'health']);
    expect(topLayout(7, undefined).header).toEqual(['summary']);
    expect(topLayout(6, undefined)).toEqual({ header: [], bodyHeight: 3, shownBody: 3, promptLines: 1 });
  });

  test('the database unreachable is the last line to go; a standby’s lag comes after the summary', () => {
    expect(topLayout(7, 'outage').header).toEqual(['alert']);
    expect(topLayout(8, 'outage').header).toEqual(['summary', 'alert']);
    expect(topLayout(8, 'replication').header).toEqual(['summary', 'alert']);
    expect(topLayout(9, 'replication').header).toEqual(['summary', 'health', 'alert']);
  });

  test('every layout fits in one line less than the terminal while it can', () => {
    for (let rows = 6; rows <= 60; rows++) {
      for (const alert of [undefined, 'outage', 'replication'] as const) {
        const l = topLayout(rows, alert);
        expect(l.header.length + l.bodyHeight + 2).toBe(rows - 1);
        expect(l.bodyHeight).toBeGreaterThanOrEqual(3);
      }
    }
  });
});
