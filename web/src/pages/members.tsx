import { useState } from 'preact/hooks';
import { ApiError, must, type AccountUser, type Invitation } from '../api/client';
import { api, useSession } from '../session';
import { Checkbox, CopyButton, ErrorNote, Field, Form, Loading, Notice, Page, Pager, Select, Table, formatDate, text, useLoad } from '../ui';

const LIMIT = 20;
type EmailStatus = Invitation['email_status'];
const STATE_WORDS: Record<string, string> = { open: 'Open', expired: 'Expired', accepted: 'Accepted', cancelled: 'Cancelled' };
const EMAIL_WORDS: Record<NonNullable<EmailStatus> | 'unknown', string> = {
  sent: 'Sent', failed: 'Not delivered yet (retrying)', not_configured: 'Not emailed (no mail server)', unknown: '—',
};

/** What became of an invitation email, in a sentence. */
function deliveryWords(status: EmailStatus, email: string): string {
  if (status === 'sent') return `An invitation was emailed to ${email}.`;
  if (status === 'failed') return `The invitation to ${email} was made, but the email could not be delivered yet; the server tries again, or send it again later.`;
  if (status === 'not_configured') return `The invitation to ${email} was made, but this server sends no email: pass the link below on yourself.`;
  return `The invitation to ${email} was made.`;
}

export function MembersPage() {
  const session = useSession();
  const [page, setPage] = useState(1);
  const [invitePage, setInvitePage] = useState(1);
  const [everyInvitation, setEveryInvitation] = useState(false);
  const [error, setError] = useState<unknown>();
  const [done, setDone] = useState<string>();
  const [link, setLink] = useState<string>();
  const members = useLoad(() => must(api.GET('/api/v1/account-users', { params: { query: { page, limit: LIMIT } } })), [page]);
  const invitations = useLoad(() => must(api.GET('/api/v1/account-invitations', {
    params: { query: { page: invitePage, limit: LIMIT, ...(everyInvitation ? { include_cancelled: true } : {}) } },
  })), [invitePage, everyInvitation]);

  const act = (label: string, work: () => Promise<unknown>) => async () => {
    setError(undefined);
    setDone(undefined);
    try {
      await work();
      setDone(label);
      members.reload();
      invitations.reload();
    } catch (caught) {
      setError(caught);
    }
  };
  const setRole = (member: AccountUser, admin: boolean) => act(`${member.user.name} is now ${admin ? 'an admin' : 'a member'}.`, () =>
    must(api.PUT('/api/v1/account-users/{id}', { params: { path: { id: member.id } }, body: { account_user: { roles: { admin } } } })))();
  const remove = (member: AccountUser) => async () => {
    if (!confirm(`Remove ${member.user.name} from this account?`)) return;
    await act(`${member.user.name} was removed.`, () =>
      must(api.DELETE('/api/v1/account-users/{id}', { params: { path: { id: member.id } } })))();
  };
  const cancel = (invitation: Invitation) => act(`The invitation to ${invitation.email} was cancelled.`, () =>
    must(api.DELETE('/api/v1/account-invitations/{id}', { params: { path: { id: invitation.id } } })));
  const resend = (invitation: Invitation) => async () => {
    setError(undefined);
    setDone(undefined);
    setLink(undefined);
    try {
      const sent = await must(api.POST('/api/v1/account-invitations/{id}/resend', { params: { path: { id: invitation.id } } }));
      setDone(`${deliveryWords(sent.email_status, invitation.email)} The old link no longer works; the new one is valid for 7 days.`);
      setLink(sent.invite_url);
      invitations.reload();
    } catch (caught) {
      setError(caught instanceof ApiError && caught.status === 429
        ? new Error(`${invitation.email} was emailed less than an hour ago. Wait a little before sending the invitation again, so that it does not look like spam.`)
        : caught);
    }
  };

  return (
    <Page title="Members">
      <ErrorNote error={error ?? members.error} />
      {done && <Notice>{done}</Notice>}
      {link && (
        <div class="card">
          <p>The invitation link (shown this once):</p>
          <pre class="snippet"><code id="invite-link">{link}</code></pre>
          <CopyButton text={link} label="Copy link" />
        </div>
      )}
      <section>
        <h2>People with access</h2>
        {members.loading && !members.data && <Loading what="members" />}
        {members.data && (
          <>
            <Table label="Members">
              <thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Since</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
              <tbody>
                {members.data.data.map((m) => (
                  <tr key={m.id}>
                    <th scope="row">{m.user.name}{m.user.id === session.me?.user?.id && <span class="tag">you</span>}</th>
                    <td>{m.user.email}</td>
                    <td>
                      <label class="visually-hidden" for={`role-${m.id}`}>Role of {m.user.name}</label>
                      <select id={`role-${m.id}`} value={m.roles.admin ? 'admin' : 'member'}
                        onChange={(e) => setRole(m, (e.currentTarget as HTMLSelectElement).value === 'admin')}>
                        <option value="admin">Admin</option>
                        <option value="member">Member</option>
                      </select>
                    </td>
                    <td>{formatDate(m.created_at)}</td>
                    <td class="row-actions"><button type="button" class="danger" onClick={remove(m)} aria-label={`Remove ${m.user.name}`}>Remove</button></td>
                  </tr>
                ))}
              </tbody>
            </Table>
            <Pager pagination={members.data.pagination} limit={LIMIT} onPage={setPage} />
          </>
        )}
      </section>
      <section>
        <h2>Invitations</h2>
        <Checkbox label="Also show cancelled and accepted invitations" checked={everyInvitation}
          onChange={(e: Event) => { setEveryInvitation((e.currentTarget as HTMLInputElement).checked); setInvitePage(1); }} />
        <ErrorNote error={invitations.error} />
        {invitations.data && (invitations.data.data.length === 0 ? <p>No open invitations.</p> : (
          <>
            <Table label="Invitations">
              <thead><tr><th scope="col">Name</th><th scope="col">Email</th><th scope="col">Role</th><th scope="col">State</th><th scope="col">Email</th><th scope="col">Valid until</th><th scope="col"><span class="visually-hidden">Actions</span></th></tr></thead>
              <tbody>
                {invitations.data.data.map((i) => (
                  <tr key={i.id}>
                    <th scope="row">{i.name}</th><td>{i.email}</td><td>{i.roles.admin ? 'Admin' : 'Member'}</td>
                    <td>{STATE_WORDS[i.status] ?? i.status}</td><td>{EMAIL_WORDS[i.email_status ?? 'unknown']}</td><td>{formatDate(i.expires_at)}</td>
                    <td class="row-actions">
                      {(i.status === 'open' || i.status === 'expired') && <>
                        <button type="button" onClick={resend(i)} aria-label={`Send again the invitation to ${i.email}`}>Send again</button>
                        <button type="button" class="danger" onClick={cancel(i)} aria-label={`Cancel the invitation to ${i.email}`}>Cancel</button>
                      </>}
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
            <Pager pagination={invitations.data.pagination} limit={LIMIT} onPage={setInvitePage} />
          </>
        ))}
      </section>
      <section class="card">
        <h2>Invite someone</h2>
        <Form submit="Send invitation" label="Invite someone" onSubmit={async (data, form) => {
          setError(undefined);
          setDone(undefined);
          const email = text(data, 'email');
          setLink(undefined);
          const made = await must(api.POST('/api/v1/account-invitations', { body: { name: text(data, 'name'), email, role: text(data, 'role') as 'admin' | 'member' } }));
          form.reset();
          setDone(`${deliveryWords(made.email_status, email)} The link is valid for 7 days.`);
          setLink(made.invite_url);
          invitations.reload();
        }}>
          <Field label="Name" name="name" required />
          <Field label="Email" name="email" type="email" required />
          <Select label="Role" name="role" defaultValue="member" options={[['member', 'Member (can look)'], ['admin', 'Admin (can change)']]} />
        </Form>
      </section>
    </Page>
  );
}
