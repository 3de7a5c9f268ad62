// A support mailbox to try Deskflow's e-mail channel on one machine, without a mail provider
// (docs/mail.md): Dovecot serving one IMAP mailbox, and Mailpit taking the mail
// Deskflow sends and showing it in a web page. Both run from a temporary directory and stop,
// leaving nothing behind, on Ctrl-C. Needs Dovecot (Debian: apt-get install dovecot-imapd) and
// Mailpit (go install github.com/axllent/mailpit@v1.27.11: on PATH, in ~/go/bin, where
// `npm run provision` builds it, or at MAILPIT_PATH); a missing one is named with its install command.
//
//   node scripts/mail-sandbox.ts [--imap-port 3143] [--smtp-port 1025] [--web-port 8025]
import { parseArgs } from 'node:util';
import { manualInstall, toolOf } from './test-tools.ts';
import { startDovecot, startMailpit, type Dovecot, type Mailpit } from '../test/helpers/mail-servers.ts';

// Each found once: what the environment does not name, it is pointed at.
const missing = [toolOf('DOVECOT_PATH'), toolOf('MAILPIT_PATH')].filter((tool) => {
  const found = tool.find();
  if (found) process.env[tool.env] ??= found;
  return !found;
});
if (missing.length > 0) {
  console.error(
    [
      'The mail sandbox did not start: it needs what is not installed here.',
      ...missing.map((tool) => `  ${tool.what}: ${manualInstall(tool)}   (or set ${tool.env} to where it is)`),
    ].join('\n'),
  );
  process.exit(1);
}

const { values } = parseArgs({
  options: { 'imap-port': { type: 'string', default: '3143' }, 'smtp-port': { type: 'string', default: '1025' }, 'web-port': { type: 'string', default: '8025' } },
});
const port = (name: 'imap-port' | 'smtp-port' | 'web-port') => Number(values[name]);

let dovecot: Dovecot | undefined;
let mailpit: Mailpit | undefined;
const stop = async (code: number) => {
  await Promise.allSettled([dovecot?.destroy(), mailpit?.destroy()]);
  process.exit(code);
};
process.once('SIGINT', () => void stop(0));
process.once('SIGTERM', () => void stop(0));

try {
  dovecot = await startDovecot({ user: 'support', password: 'support', port: port('imap-port') });
  mailpit = await startMailpit({ smtpPort: port('smtp-port'), httpPort: port('web-port') });
} catch (err) {
  console.error(`The mail sandbox did not start: ${err instanceof Error ? err.message : String(err)}`);
  await stop(1);
}

console.log(`Mail sandbox running (Ctrl-C stops it):
  IMAP mailbox  imap://support:support@127.0.0.1:${port('imap-port')}/INBOX   (Dovecot; put a customer's mail in with curl -T mail.eml <this URL>)
  SMTP server   smtp://deskflow:deskflow@127.0.0.1:${port('smtp-port')}          (Mailpit; takes any user and password)
  Sent mail     http://127.0.0.1:${port('web-port')}`);
