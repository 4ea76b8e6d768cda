import { render } from 'preact';
import { App } from './app';
import { restoreSession } from './session';
import './styles.css';

render(<App />, document.getElementById('app')!);
void restoreSession();
