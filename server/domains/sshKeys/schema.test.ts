import { describe, expect, it } from 'vitest';
import { sshKeyNameSchema } from './schema';

describe('SSH key names', () => {
  it('refuse exactly the control characters (Unicode Cc), with a pattern that names no \\p{…} class', () => {
    const control = /^\p{Cc}$/u;
    const disagreements: string[] = [];
    for (let code = 0; code <= 0xffff; code += 1) {
      const char = String.fromCharCode(code);
      if (sshKeyNameSchema.safeParse(`a${char}b`).success === control.test(char)) disagreements.push(code.toString(16));
    }
    expect(disagreements).toEqual([]);
    expect(sshKeyNameSchema.safeParse('laptop 🔑').success).toBe(true);
    expect(JSON.stringify(sshKeyNameSchema.toJSONSchema())).not.toMatch(/\\\\p\{/);
  });
});
