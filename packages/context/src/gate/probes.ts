/**
 * Known-folder probes: the ways a shell command asks for the user's Desktop, Documents
 * or Downloads folder instead of naming it. Each pattern captures the whole probe token.
 */
export type KnownFolder = 'Desktop' | 'Documents' | 'Downloads';
export const KNOWN_FOLDERS: readonly KnownFolder[] = ['Desktop', 'Documents', 'Downloads'];

export type ProbeShell = 'powershell' | 'cmd' | 'posix';

export interface ProbeMatch {
  target: KnownFolder;
  shell: ProbeShell;
  index: number;
  text: string;
  /** A PowerShell expression (`[Environment]::GetFolderPath(…)`): its replacement must be a string literal. */
  expression: boolean;
}

/** Folder names as they appear after a profile variable (and in a fact's path). */
const FOLDER_WORDS: Record<KnownFolder, string> = {
  Desktop: 'Desktop',
  Documents: '(?:Documents|My Documents)',
  Downloads: 'Downloads',
};
const SPECIAL_FOLDER: Record<KnownFolder, string> = {
  Desktop: '(?:Desktop|DesktopDirectory)',
  Documents: '(?:MyDocuments|Personal)',
  Downloads: '(?!)', // .NET has no SpecialFolder for Downloads
};
const XDG_NAME: Record<KnownFolder, string> = { Desktop: 'DESKTOP', Documents: 'DOCUMENTS', Downloads: 'DOWNLOAD' };

/** The probe ends where the folder name ends: at a separator, a quote, a space or the end. */
const END = `(?=[\\\\/'"\`\\s;|&)]|$)`;

function patterns(t: KnownFolder): Array<{ shell: ProbeShell; re: RegExp }> {
  const w = FOLDER_WORDS[t];
  return [
    { shell: 'powershell', re: new RegExp(`\\$env:USERPROFILE[\\\\/]${w}${END}`, 'gi') },
    { shell: 'powershell', re: new RegExp(`\\$\\{env:USERPROFILE\\}[\\\\/]${w}${END}`, 'gi') },
    {
      shell: 'powershell',
      re: new RegExp(
        `\\[(?:System\\.)?Environment\\]::GetFolderPath\\(\\s*(?:['"]${SPECIAL_FOLDER[t]}['"]|\\[(?:System\\.)?Environment\\+SpecialFolder\\]::${SPECIAL_FOLDER[t]})\\s*\\)`,
        'gi',
      ),
    },
    // PowerShell defines $HOME and expands `~` at the start of a path, with either separator;
    // a backslash after them only makes sense in PowerShell.
    { shell: 'powershell', re: new RegExp(`(?:"\\$(?:HOME|\\{HOME\\})"|\\$(?:HOME|\\{HOME\\}))\\\\${w}${END}`, 'gi') },
    { shell: 'powershell', re: new RegExp(`(?<![\\w/.~-])~\\\\${w}${END}`, 'g') },
    { shell: 'cmd', re: new RegExp(`%USERPROFILE%[\\\\/]${w}${END}`, 'gi') },
    { shell: 'posix', re: new RegExp(`\\$\\(\\s*xdg-user-dir\\s+${XDG_NAME[t]}\\s*\\)`, 'g') },
    { shell: 'posix', re: new RegExp(`(?<![\\w/.~-])~/${w}${END}`, 'g') },
    { shell: 'posix', re: new RegExp(`\\$(?:HOME|\\{HOME\\})/${w}${END}`, 'g') },
    // `"$HOME"/Desktop`: the variable quoted on its own, the folder outside the quotes.
    { shell: 'posix', re: new RegExp(`"\\$(?:HOME|\\{HOME\\})"/${w}${END}`, 'g') },
  ];
}

/** Every probe in the command, in order of position. */
export function findProbes(command: string): ProbeMatch[] {
  const out: ProbeMatch[] = [];
  for (const target of KNOWN_FOLDERS) {
    for (const { shell, re } of patterns(target)) {
      for (const m of command.matchAll(re)) {
        let index = m.index;
        let text = m[0];
        const expression = text.startsWith('[');
        // `$([Environment]::GetFolderPath('Desktop'))` as a whole is the probe (a plain value in strings).
        if (expression && command.slice(index - 2, index) === '$(' && command[index + text.length] === ')') {
          index -= 2;
          text = `$(${text})`;
          out.push({ target, shell, index, text, expression: false });
          continue;
        }
        out.push({ target, shell, index, text, expression });
      }
    }
  }
  return out.sort((a, b) => a.index - b.index);
}

/** Localized folder names a known path may end with (Windows shows 桌面 for Desktop, …). */
export const FOLDER_ALIASES: Record<KnownFolder, string[]> = {
  Desktop: ['desktop', '桌面'],
  Documents: ['documents', 'my documents', '文档', '我的文档'],
  Downloads: ['downloads', '下载'],
};
