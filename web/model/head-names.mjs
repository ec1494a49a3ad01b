// Head names and their titles. Designed heads have names of their own ('role',
// 'alignment'); numbered heads (free mode, the learned heads) are 'head-0',
// 'head-1', …; the single head is 'single'. Pure.

const NUMBERED = 'head-';

/** The name of numbered head h: 'head-2'. */
export const headName = (h) => `${NUMBERED}${h}`;

/** A head's display title: "role head", "head 2", "single head". */
export function headTitle(name) {
  return name.startsWith(NUMBERED) ? `head ${name.slice(NUMBERED.length)}` : `${name} head`;
}
