import { describe, expect, it } from 'vitest';
import { serializeError } from './logger';

describe('serializeError', () => {
  it('keeps what explains a failure and drops the SQL parameters a driver error carries', () => {
    const driverError = Object.assign(new Error('duplicate key value violates unique constraint "users_email_key"'), {
      code: '23505',
      query: 'insert into users (email, password_hash) values ($1, $2)',
      parameters: ['ada@example.com', '$argon2id$v=19$m=65536,t=3,p=4$secret'],
      args: ['ada@example.com', '$argon2id$v=19$secret'],
    });
    const wrapped = new Error(`Failed query: insert into users (email, password_hash) values ($1, $2)\nparams: ada@example.com,$argon2id$v=19$secret`, {
      cause: driverError,
    });
    const logged = JSON.stringify(serializeError(wrapped));
    expect(logged).toContain('users_email_key');
    expect(logged).toContain('23505');
    expect(logged).not.toContain('ada@example.com');
    expect(logged).not.toContain('argon2id');
    expect(logged).not.toContain('insert into users');
  });
});
