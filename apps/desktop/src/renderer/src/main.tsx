import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './i18n';
import './styles/base.css';
import './styles/chat.css';
import './styles/panels.css';
import './styles/conversation.css';
import './styles/layout.css';
import './styles/tools.css';
import './styles/rules.css';
import './styles/memory.css';
import { App } from './App';

const root = document.getElementById('root');
if (root) {
  createRoot(root).render(
    <StrictMode>
      <App />
    </StrictMode>,
  );
}
