// The topic bindings (pgmq 1.11+): pattern → queue and when it was bound, read again every
// refresh interval. `t` asks for a routing key and shows which queues a topic send with it
// would reach (pgmq's test_routing: nothing is sent), marking the bindings it matches.
import { useState } from 'react';
import type { Backend } from '../../../backends/types.js';
import { useLiveLoad, type LiveOptions } from '../../hooks/useMessages.js';
import type { KeyRouter } from '../../hooks/useKeys.js';
import { errorText } from '../../model/monitor.js';
import { bindingColumns, bindingRows, DEFAULT_BINDING_SORT, routingLine, type BindingRow, type RoutingTest } from '../../model/topics.js';
import type { ViewCommand } from '../../model/view-keys.js';
import { LineInput } from '../LineInput.js';
import { TableView } from './TableView.js';

export interface TopicsScreenProps {
  readonly backend: Backend;
  readonly live: LiveOptions;
  readonly keys: KeyRouter;
  readonly active: boolean;
  readonly width: number;
  readonly height: number;
  readonly now: number;
  /** Enter: the queue view of the binding's queue. */
  readonly onOpenQueue: (queue: string) => void;
  /** Back, help, refresh, interval, quit. */
  readonly onCommand: (command: ViewCommand) => void;
}

export function TopicsScreen(p: TopicsScreenProps) {
  const { backend } = p;
  const [asking, setAsking] = useState(false);
  const [test, setTest] = useState<RoutingTest | undefined>(undefined);
  const { value, error, reload, current } = useLiveLoad(
    async () => (backend.topicBindings ? backend.topicBindings() : []),
    [backend],
    p.live,
  );

  const runTest = async (key: string) => {
    setAsking(false);
    if (!backend.testRouting) return;
    try {
      setTest({ key, ok: true, matches: await backend.testRouting(key) });
    } catch (e) {
      setTest({ key, ok: false, error: errorText(e) });
    }
  };

  const rows = value ? bindingRows(value, test) : undefined;
  const note = test ? [{ text: routingLine(test), color: !test.ok ? 'red' : test.matches.length > 0 ? 'green' : 'yellow' }] : [];
  const count = value ? ` · ${value.length} ${value.length === 1 ? 'binding' : 'bindings'}` : '';
  return (
    <TableView<BindingRow>
      screen="topics"
      title={['topic bindings', count, ' · t tests a routing key (sends nothing)']}
      notes={note}
      rows={rows}
      columns={bindingColumns(p.now, test?.ok === true)}
      defaultSort={DEFAULT_BINDING_SORT}
      tone={() => undefined}
      filterOf={(r) => [r.pattern, r.queue]}
      noun="binding"
      emptyText="no topic bindings · bind one with: smq bind <pattern> <queue>"
      error={error}
      onCommand={(cmd, row) => {
        if (cmd.type === 'testRoute') return setAsking(true);
        if (cmd.type === 'open') {
          if (row) p.onOpenQueue(row.queue);
          return;
        }
        if (cmd.type === 'refresh') reload();
        p.onCommand(cmd);
      }}
      prompt={
        asking ? (
          <LineInput
            keys={p.keys}
            label="routing key: "
            initial={test?.key ?? ''}
            hint="Enter tests it · Esc cancels"
            onSubmit={(key) => void runTest(key)}
            onCancel={() => setAsking(false)}
          />
        ) : undefined
      }
      keys={p.keys}
      active={p.active}
      ready={current || error !== undefined}
      width={p.width}
      height={p.height}
    />
  );
}
