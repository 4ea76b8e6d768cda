import { useState } from 'preact/hooks';
import { SIGN_UP_CLOSED } from '../../../src/modules/users/sign-up-closed';
import { ApiError, must } from '../api/client';
import { navigate } from '../router';
import { api, signInWith, useSession } from '../session';
import { Field, Form, Link, Notice, Page, text } from '../ui';

/** What the server wrote in the page's head: sign-up turned off (see the server's dashboard files). */
const SIGN_UP_OFF = document.querySelector('meta[name="consentry-sign-up"]')?.getAttribute('content') === 'off';

export function SignIn() {
  const session = useSession();
  const [mode, setMode] = useState<'password' | 'token'>('password');
  const withPassword = async (data: FormData) => {
    const { token } = await must(api.POST('/api/v1/auth', { body: { email: text(data, 'email'), password: String(data.get('password')) } }));
    await signInWith(token);
    navigate('/', { replace: true });
  };
  const withToken = async (data: FormData) => {
    await signInWith(text(data, 'token'));
    navigate('/', { replace: true });
  };
  return (
    <Page title="Sign in">
      <div class="narrow card">
        {session.notice && <p class="note" role="status">{session.notice}</p>}
        <div class="tabs" role="group" aria-label="How to sign in">
          <button type="button" aria-pressed={mode === 'password'} onClick={() => setMode('password')}>Email and password</button>
          <button type="button" aria-pressed={mode === 'token'} onClick={() => setMode('token')}>API token</button>
        </div>
        {mode === 'password' ? (
          <Form onSubmit={withPassword} submit="Sign in" label="Sign in with email and password">
            <Field label="Email" name="email" type="email" autocomplete="username" required />
            <Field label="Password" name="password" type="password" autocomplete="current-password" required />
          </Form>
        ) : (
          <Form onSubmit={withToken} submit="Sign in with token" label="Sign in with an API token">
            <Field label="API token" name="token" type="password" autocomplete="off" required
              hint="A partner token (csp_…) from your operator, or a user or account token." />
          </Form>
        )}
        <p><Link href="/forgot-password">Forgot your password?</Link></p>
        {!SIGN_UP_OFF && <p>New here? <Link href="/sign-up">Sign up</Link></p>}
      </div>
    </Page>
  );
}

/**
 * Public sign-up (`POST /users`): the new login is signed in with the session token the API answers.
 * With sign-up turned off, the server says so in the page's head (then the form is never shown and
 * sign-in offers no link here), and the API refuses it (403: a server whose setting changed since the
 * page loaded); either way the form gives way to where people come from instead.
 */
export function SignUp() {
  const [closed, setClosed] = useState<string | undefined>(SIGN_UP_OFF ? SIGN_UP_CLOSED : undefined);
  const signUp = async (data: FormData) => {
    try {
      const { token } = await must(api.POST('/api/v1/users', {
        body: { user: { name: text(data, 'name'), email: text(data, 'email'), password: String(data.get('password')) } },
      }));
      await signInWith(token);
      navigate('/', { replace: true });
    } catch (error) {
      if (!(error instanceof ApiError && error.status === 403)) throw error;
      setClosed(error.message);
    }
  };
  return (
    <Page title="Sign up">
      <div class="narrow card">
        {closed ? (
          <div class="note error" role="alert">
            <p>{closed}. Ask someone who already works on your website in Consentry to invite you, or whoever runs
              this server for a login.</p>
          </div>
        ) : (
          <Form onSubmit={signUp} submit="Sign up" label="Sign up">
            <Field label="Your name" name="name" autocomplete="name" required />
            <Field label="Email" name="email" type="email" autocomplete="username" required />
            <Field label="Password" name="password" type="password" autocomplete="new-password" required hint="At least 8 characters." />
          </Form>
        )}
        <p>Already have a login? <Link href="/sign-in">Sign in</Link></p>
      </div>
    </Page>
  );
}

export function ForgotPassword() {
  const [sent, setSent] = useState<string>();
  return (
    <Page title="Reset your password">
      <div class="narrow card">
        {sent ? <Notice><p>{sent}</p></Notice> : (
          <Form submit="Email me a link" label="Ask for a password reset link" onSubmit={async (data) => {
            const answer = await must(api.POST('/api/v1/password/reset', { body: { email: text(data, 'email') } }));
            setSent(`${answer.message}. The link works once, for one hour.`);
          }}>
            <p>Enter the email you sign in with. We will send you a link to choose a new password.</p>
            <Field label="Email" name="email" type="email" autocomplete="username" required />
          </Form>
        )}
        <p><Link href="/sign-in">Back to sign in</Link></p>
      </div>
    </Page>
  );
}

export function ResetPassword({ token }: { token: string }) {
  const [done, setDone] = useState(false);
  return (
    <Page title="Choose a new password">
      <div class="narrow card">
        {done ? (
          <Notice><p>Your password has been changed, and every session was signed out. <Link href="/sign-in">Sign in</Link> with the new password.</p></Notice>
        ) : (
          <Form submit="Set password" label="Choose a new password" onSubmit={async (data) => {
            await must(api.PUT('/api/v1/password/reset', {
              body: { token, password: String(data.get('password')), password_confirmation: String(data.get('password_confirmation')) },
            }));
            setDone(true);
          }}>
            <Field label="New password" name="password" type="password" autocomplete="new-password" required hint="At least 8 characters." />
            <Field label="New password again" name="password_confirmation" type="password" autocomplete="new-password" required />
          </Form>
        )}
      </div>
    </Page>
  );
}

export function AcceptInvitation({ secret }: { secret: string }) {
  return (
    <Page title="Accept your invitation">
      <div class="narrow card">
        <p>
          You have been invited to work on a website in Consentry. New here? Choose your name and a password.
          Already have a Consentry login with the invited email? Enter its password.
        </p>
        <Form submit="Accept invitation" label="Accept the invitation" onSubmit={async (data) => {
          const name = text(data, 'name');
          const { data: member, token } = await must(api.POST('/api/v1/account-invitations/accept', {
            body: { invitation: { token: secret, password: String(data.get('password')), ...(name ? { name } : {}) } },
          }));
          await signInWith(token);
          navigate(`/accounts/${member.account.id}`, { replace: true });
        }}>
          <Field label="Your name (new logins only)" name="name" autocomplete="name" />
          <Field label="Password" name="password" type="password" autocomplete="new-password" required hint="At least 8 characters for a new login." />
        </Form>
      </div>
    </Page>
  );
}
