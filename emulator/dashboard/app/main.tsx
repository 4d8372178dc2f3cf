import { createRoot } from 'react-dom/client';
import { App } from './app.js';
import { ViewBoundary } from './components/view-boundary.js';
import './styles.css';

createRoot(document.getElementById('root')!).render(
  <ViewBoundary name="the dashboard">
    <App />
  </ViewBoundary>,
);
