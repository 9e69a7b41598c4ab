import { useToastStore } from '../stores/toast.store';

/** Toasts, announced politely to screen readers. */
export function Toaster() {
  const toasts = useToastStore((s) => s.toasts);
  return (
    <div className="toaster" role="status" aria-live="polite">
      {toasts.map((toast) => (
        <div key={toast.id} className="toast">
          {toast.text}
        </div>
      ))}
    </div>
  );
}
