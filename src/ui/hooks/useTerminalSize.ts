// The terminal's size, updated on resize so the screen is laid out again.
import { useEffect, useState } from 'react';
import { useStdout } from 'ink';

export interface TerminalSize {
  readonly columns: number;
  readonly rows: number;
}

const FALLBACK: TerminalSize = { columns: 80, rows: 24 };

function read(stdout: NodeJS.WriteStream): TerminalSize {
  return {
    columns: stdout.columns > 0 ? stdout.columns : FALLBACK.columns,
    rows: stdout.rows > 0 ? stdout.rows : FALLBACK.rows,
  };
}

/** `fixed` (tests) wins over the real terminal. */
export function useTerminalSize(fixed?: TerminalSize): TerminalSize {
  const { stdout } = useStdout();
  const [size, setSize] = useState<TerminalSize>(() => fixed ?? read(stdout));
  const fixedColumns = fixed?.columns;
  const fixedRows = fixed?.rows;
  useEffect(() => {
    if (fixedColumns !== undefined && fixedRows !== undefined) {
      setSize({ columns: fixedColumns, rows: fixedRows });
      return;
    }
    const onResize = () => setSize(read(stdout));
    onResize();
    stdout.on('resize', onResize);
    return () => {
      stdout.off('resize', onResize);
    };
  }, [stdout, fixedColumns, fixedRows]);
  return size;
}
