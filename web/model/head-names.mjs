// Head names and their titles. Designed heads have names of their own ('role',
// 'alignment'); numbered heads (free mode, the learned heads) are 'head-0',
// 'head-1', …; the single head is 'single'. Titles are in the page's
// language (lib/i18n.mjs). Pure.
import { t } from '../lib/i18n.mjs';

const NUMBERED = 'head-';

/** The name of numbered head h: 'head-2'. */
export const headName = (h) => `${NUMBERED}${h}`;

/** A head's display title: "role head", "head 2", "single head" (角色头, 头 2, 单头). */
export function headTitle(name) {
  return name.startsWith(NUMBERED) ? t('head.numbered', { n: name.slice(NUMBERED.length) }) : t(`head.title.${name}`);
}
