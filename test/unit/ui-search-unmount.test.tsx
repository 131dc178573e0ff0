// A search under way stops when top goes away (quit, or a switch of context starts top over
// on another store): no more steps are read from the store it was searching.
import { useEffect } from 'react';
import { afterEach, beforeEach, expect, test, vi } from 'vitest';
import { Text } from 'ink';
import type { Backend, SearchStep } from '../../src/backends/types.js';
import { useSearch } from '../../src/ui/hooks/useSearch.js';
import { renderElement } from '../helpers/ui/render.js';

beforeEach(() => {
  vi.useFakeTimers();
});
afterEach(() => {
  vi.useRealTimers();
});

test('unmounting stops the scan after the step under way', async () => {
  const steps: ((s: SearchStep) => void)[] = [];
  const backend = {
    searchMessages: () => new Promise<SearchStep>((resolve) => steps.push(resolve)),
  } as unknown as Backend;
  const queue = { key: 'q', label: 'q', name: 'q', rawName: 'q' } as never;
  function Searching() {
    const search = useSearch();
    const { start } = search;
    useEffect(() => start(backend, queue, 'x'), [start]);
    return <Text>{search.state?.phase ?? ''}</Text>;
  }
  const h = renderElement(<Searching />, vi);
  await h.settle();
  expect(steps).toHaveLength(1);
  h.unmount();
  steps[0]!({ matches: [], scanned: 5000, nextAfterId: '5000', mode: 'text' } as unknown as SearchStep);
  await vi.advanceTimersByTimeAsync(10);
  expect(steps).toHaveLength(1);
});
