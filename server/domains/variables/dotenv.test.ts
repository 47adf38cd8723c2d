import { describe, expect, it } from 'vitest';
import { parseDotenv } from './dotenv';

const values = (content: string) => Object.fromEntries(parseDotenv(content).entries.map((e) => [e.name, e.value]));

describe('parseDotenv', () => {
  it('skips comments and blank lines, takes an export prefix and blanks around =, and keeps line numbers', () => {
    const parsed = parseDotenv('# database\n\nexport DATABASE_URL = postgres://db/app\n   \n  PORT=3000\n');
    expect(parsed.problems).toEqual([]);
    expect(parsed.entries).toEqual([
      { name: 'DATABASE_URL', value: 'postgres://db/app', line: 3 },
      { name: 'PORT', value: '3000', line: 5 },
    ]);
  });

  it('reads empty values, trailing comments of bare values, and # without a blank before it as part of the value', () => {
    expect(values('EMPTY=\nBLANK=   \nCOLOR=blue # the brand colour\nANCHOR=page#top\n')).toEqual({ EMPTY: '', BLANK: '', COLOR: 'blue', ANCHOR: 'page#top' });
  });

  it('takes single- and back-quoted values literally, blanks and # included', () => {
    expect(values(`GREETING='  hello # world \\n '\nTICKS=\`a "b" c\`\n`)).toEqual({ GREETING: '  hello # world \\n ', TICKS: 'a "b" c' });
  });

  it('unescapes \\n, \\t, \\\\ and \\" in double quotes and keeps other backslashes', () => {
    expect(values('MSG="line1\\nline2\\t\\"quoted\\" \\\\ \\d" # comment\n')).toEqual({ MSG: 'line1\nline2\t"quoted" \\ \\d' });
  });

  it('reads multi-line double-quoted values (a PEM key) and goes on after them', () => {
    const parsed = parseDotenv('A=1\nPRIVATE_KEY="-----BEGIN KEY-----\nabc\n-----END KEY-----"\nB=2\n');
    expect(parsed.problems).toEqual([]);
    expect(parsed.entries).toEqual([
      { name: 'A', value: '1', line: 1 },
      { name: 'PRIVATE_KEY', value: '-----BEGIN KEY-----\nabc\n-----END KEY-----', line: 2 },
      { name: 'B', value: '2', line: 5 },
    ]);
  });

  it('reads Windows line endings and a byte-order mark', () => {
    expect(values('\uFEFFA=1\r\nB="x\r\ny"\r\n')).toEqual({ A: '1', B: 'x\ny' });
  });

  it('reports names outside the rule, lines without =, and duplicates, each with its line', () => {
    const parsed = parseDotenv('api_url=x\nGOOD=1\njust some text\nGOOD=2\n1ST=a\n=b\n');
    expect(parsed.entries).toEqual([{ name: 'GOOD', value: '1', line: 2 }]);
    expect(parsed.problems).toEqual([
      { line: 1, message: '"api_url": Name must be upper-case letters, digits and underscores, starting with a letter' },
      { line: 3, message: 'Expected NAME=value' },
      { line: 4, message: 'GOOD is already set on line 2' },
      { line: 5, message: '"1ST": Name must be upper-case letters, digits and underscores, starting with a letter' },
      { line: 6, message: '"": Name is required' },
    ]);
  });

  it('reports an unterminated quote at the line that opens it, and text after a closing quote', () => {
    expect(parseDotenv('A="never closed\nB=2\n').problems).toEqual([{ line: 1, message: 'The " that opens the value is never closed' }]);
    expect(parseDotenv("A='x' y\n").problems).toEqual([{ line: 1, message: "Unexpected text after the closing ': put the whole value inside the quotes" }]);
  });
});
