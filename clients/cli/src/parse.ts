import { InvalidArgumentError } from 'commander';

/** An option that takes one of the API's words; `normalise` forgives the case people type. */
export function oneOf<T extends string>(what: string, values: readonly T[], normalise: (value: string) => string = (v) => v) {
  return (value: string): T => {
    const chosen = normalise(value) as T;
    if (!values.includes(chosen)) throw new InvalidArgumentError(`${what} is one of ${values.join(', ')}`);
    return chosen;
  };
}

/** An option that takes a whole number within bounds. */
export function integer(min: number, max: number = Number.MAX_SAFE_INTEGER) {
  return (value: string): number => {
    const number = Number(value);
    if (!Number.isInteger(number) || number < min || number > max) {
      throw new InvalidArgumentError(max === Number.MAX_SAFE_INTEGER ? `Give a whole number of at least ${min}` : `Give a whole number from ${min} to ${max}`);
    }
    return number;
  };
}

/** For `oneOf`: the API's words are upper case (`PRIVATE`), people may type them either way. */
export const upperCase = (value: string) => value.toUpperCase();
