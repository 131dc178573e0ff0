// What smq scrubs from the text it prints (secrets.ts, secretsFor): the password's own field
// wherever a connection text names one, and a password's literal text elsewhere only where
// starring it cannot tell a reader what it is.
import { describe, expect, test } from 'vitest';
import { redactSecrets, secretsFor } from '../../src/backends/target.js';

/** What bin/smq.js prints for an error text under this invocation. */
const shown = (text: string, url: string, env: NodeJS.ProcessEnv = {}) => redactSecrets(text, secretsFor(['--url', url, 'queues'], env));

describe('a short or ordinary password is not starred wherever its letters appear', () => {
  test.each([
    ['e', 'postgres://postgres:e@127.0.0.1:5432/postgres'],
    ['1', 'postgres://postgres:1@127.0.0.1:56031/postgres'],
    ['x', 'postgres://postgres:x@nonexistent.invalid/postgres'],
  ])('password %j: the message is left whole', (_pw, url) => {
    const text = 'authentication failed for user "postgres" at 127.0.0.1:56031 (nonexistent.invalid): check the user name and password';
    expect(shown(text, url)).toBe(text);
  });

  test('a password that is the user name (shown anyway) is not starred in the user name', () => {
    const text = 'password authentication failed for user "postgres"';
    expect(shown(text, 'postgres://postgres:postgres@127.0.0.1:5432/app')).toBe(text);
  });
});

describe("the password's own field is scrubbed whatever it holds", () => {
  test.each(['e', 'postgres', 'p@s#w/o?r:d', 'hunter2-long-enough'])('password %j in a URL or a keyword=value text', (pw) => {
    const url = `postgres://postgres:${encodeURIComponent(pw)}@db.example:5432/app`;
    const out = shown(`could not parse ${url} (password=${encodeURIComponent(pw)} sslpassword='${pw}')`, url);
    expect(out).toBe(`could not parse postgres://postgres:***@db.example:5432/app (password=*** sslpassword=***)`);
  });

  test('a long password is still scrubbed from free text, in each of its forms', () => {
    const pw = 'S3cr@t#p/w?x:Z';
    const out = shown(`driver said: bad secret ${pw}, or ${encodeURIComponent(pw)}`, `postgres://u:${encodeURIComponent(pw)}@h/db`);
    expect(out).toBe('driver said: bad secret ***, or ***');
  });

  test('PGPASSWORD of six characters or more is scrubbed from free text', () => {
    expect(shown('it was hunter22 all along', 'postgres://u@h/db', { PGPASSWORD: 'hunter22' })).toBe('it was *** all along');
  });
});

describe('passwords holding @, a space or /, long or short', () => {
  test.each(['pass@word1', 'p@ss', 'a b', 'ab/cd', 'x@y@z'])('%j: nothing of it is left in the URL', (pw) => {
    const url = `postgres://u:${pw}@db.example/app`;
    const out = shown(`smq --url ${url} top`, url);
    expect(out).toBe('smq --url postgres://u:***@db.example/app top');
  });
});
