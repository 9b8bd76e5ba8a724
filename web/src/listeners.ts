/** A set of listeners: `add` returns the function that removes the listener, `emit` calls them all. */
export class Listeners<T = void> {
  private readonly set = new Set<(value: T) => void>();

  add = (listener: (value: T) => void): (() => void) => {
    this.set.add(listener);
    return () => this.set.delete(listener);
  };

  emit(value: T): void {
    for (const listener of this.set) listener(value);
  }
}
