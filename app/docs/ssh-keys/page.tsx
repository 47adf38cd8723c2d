import type { Metadata } from 'next';
import { DocsCode as Code, DocsPage, DocsSection as Section } from '@/components/docs/DocsPage';
import { Alert } from '@/components/ui/Alert';

export const metadata: Metadata = {
  title: 'SSH keys',
  description: 'Adding SSH keys to a project: supported key types, generating a key with ssh-keygen, and fingerprints.',
};

export const dynamic = 'force-static';

const SUPPORTED: Array<[string, string, string]> = [
  ['ssh-ed25519', 'Ed25519', 'Recommended. Short, fast and secure; every OpenSSH since 6.5 (2014) supports it.'],
  ['ssh-rsa', 'RSA, 2048 bits or more', 'Accepted for older systems. Keys under 2048 bits are refused; prefer 3072 or 4096.'],
  ['ecdsa-sha2-nistp256', 'ECDSA on P-256', 'Also nistp384 and nistp521 (ecdsa-sha2-nistp384, ecdsa-sha2-nistp521).'],
];

export default function SshKeysDocsPage() {
  return (
    <DocsPage
      eyebrow="Servers"
      title="SSH keys"
      description="A server trusts the SSH keys chosen when it is created. Register your public key in the project first, then pick it in the server creation form or pass its id in sshKeyIds."
    >
      <Section title="What to paste">
        <p>
          Paste one <strong>public</strong> key in OpenSSH format: the single line of your <code>.pub</code> file, made of the key type, the key data in base64,
          and an optional comment.
        </p>
        <Code>ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIOa9…7lQ ada@laptop</Code>
        <p>
          Never paste the private key (the file without <code>.pub</code>, starting with <code>-----BEGIN OPENSSH PRIVATE KEY-----</code>). It stays on your
          computer; the server only needs the public half.
        </p>
      </Section>

      <Section title="Supported key types">
        <div className="table-wrap">
          <table className="table">
            <thead>
              <tr>
                <th>Type in the key line</th>
                <th>Algorithm</th>
                <th>Notes</th>
              </tr>
            </thead>
            <tbody>
              {SUPPORTED.map(([type, algorithm, notes]) => (
                <tr key={type}>
                  <td>
                    <code>{type}</code>
                  </td>
                  <td>{algorithm}</td>
                  <td>{notes}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p>
          DSA keys (<code>ssh-dss</code>) and hardware security-key types (<code>sk-ssh-ed25519@openssh.com</code>,{' '}
          <code>sk-ecdsa-sha2-nistp256@openssh.com</code>) are not accepted. The key data is decoded and checked: the type written in front must match the key
          inside, and an ECDSA key must lie on the curve it names.
        </p>
      </Section>

      <Section title="Generate a key with ssh-keygen">
        <p>On Linux, macOS and Windows 10 or later (PowerShell), OpenSSH&apos;s ssh-keygen makes a key pair:</p>
        <Code>ssh-keygen -t ed25519 -C &quot;ada@laptop&quot; -f ~/.ssh/id_ed25519</Code>
        <p>
          Choose a passphrase when asked. Then print the public key and paste it into the panel, or send it to the API as <code>publicKey</code>:
        </p>
        <Code>cat ~/.ssh/id_ed25519.pub</Code>
        <p>If a system cannot use Ed25519, make an RSA key of at least 3072 bits instead:</p>
        <Code>ssh-keygen -t rsa -b 4096 -C &quot;ada@laptop&quot;</Code>
        <p>
          Lost the <code>.pub</code> file? <code>ssh-keygen -y -f ~/.ssh/id_ed25519</code> prints the public key again from the private one.
        </p>
      </Section>

      <Section title="Let us generate one">
        <p>
          <em>Generate key</em> in the panel, or <code>POST /v1/projects/&#123;projectId&#125;/ssh-keys/generate</code> with a <code>name</code>, makes an
          Ed25519 pair and registers its public half. The private key comes back once, in OpenSSH format, and is never stored: download it at once and keep it
          readable only by you.
        </p>
        <Code>{'chmod 600 ~/Downloads/deploy-key\nssh -i ~/Downloads/deploy-key root@<server address>'}</Code>
        <p>Generation is limited to 10 keys per project per hour; past that the API answers 429 with a Retry-After header.</p>
      </Section>

      <Section title="Fingerprints">
        <p>
          A fingerprint identifies a key without showing it: <code>SHA256:</code> followed by the SHA-256 hash of the key data in base64, exactly as OpenSSH
          prints it. Compare it with yours:
        </p>
        <Code>{'ssh-keygen -lf ~/.ssh/id_ed25519.pub\n256 SHA256:Q3yT5cN0b5m3pAq0d8kGmV2m4l6FZ1zT9J2cQx7yH0k ada@laptop (ED25519)'}</Code>
        <p>A key can be registered once per project: adding the same key again, even with another comment, is refused with 409 and the name it already has.</p>
      </Section>

      <Section title="Keys and servers">
        <p>
          Keys are written to a server at its first boot and cannot be changed through the API afterwards, so register them before creating the server. A server
          created without keys cannot be reached over SSH.
        </p>
        <p>
          Deleting a key from the project does not remove it from servers that already trust it. The delete answer says how many live servers still accept it (
          <code>stillAuthorisedOn</code>); remove it from <code>~/.ssh/authorized_keys</code> on those servers if the key is compromised.
        </p>
      </Section>

      <Alert tone="info" title="When a key is refused">
        The error message says what is wrong: a private key instead of a public one, a key in another format (convert an RFC 4716 key with{' '}
        <code>ssh-keygen -i -f key.pub</code>), text cut off while copying, a type that does not match the key data, or an RSA key that is too short.
      </Alert>
    </DocsPage>
  );
}
