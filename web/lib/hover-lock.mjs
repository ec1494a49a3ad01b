// Hover wins, click locks (as CircuitsVis's useHoverLock): the token a view
// focuses on is the hovered one, else the locked one, else none. Clicking the
// locked token unlocks it; clicking another locks that one instead. No DOM:
// a token is { side: 'query' | 'key', index }, and the lock itself is the
// caller's state (the page keeps it in the URL), set here on every update.

/** True if a and b are the same token (false if either is null). */
export const sameToken = (a, b) => Boolean(a && b && a.side === b.side && a.index === b.index);

/** The lock a click on `token` asks for, given the current lock: none if it is the locked token, else that token. */
export const toggledLock = (lock, token) => (sameToken(lock, token) ? null : token);

export class HoverLock {
  /** The token under the pointer or the keyboard focus, or null. */
  hovered = null;
  /** The locked token, or null. */
  locked = null;

  /** The token to focus on: the hovered one wins over the lock; null with neither. */
  get focused() {
    return this.hovered ?? this.locked;
  }

  isFocused(token) {
    return sameToken(this.focused, token);
  }

  isLocked(token) {
    return sameToken(this.locked, token);
  }

  /** The lock a click on `token` asks for (toggledLock). */
  toggled(token) {
    return toggledLock(this.locked, token);
  }
}
