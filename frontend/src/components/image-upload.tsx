import { useCallback, useEffect, useId, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { uploadImage } from '../api/client';
import { toast } from '../stores/toast.store';
import { compressImage } from './image';

/**
 * For a form with photo fields: whether any is uploading (`onUploading` for each field). The form
 * cannot be sent meanwhile, else it would go out with the picture being replaced, or none.
 */
export function useUploading(): { uploading: boolean; onUploading: (uploading: boolean) => void } {
  const [count, setCount] = useState(0);
  const onUploading = useCallback((on: boolean) => setCount((n) => Math.max(0, n + (on ? 1 : -1))), []);
  return { uploading: count > 0, onUploading };
}

/**
 * A photo field: choose or take a picture, compressed in the browser, uploaded at once
 * (`upload/image`); the parent keeps the upload id. Shows the local preview and the state.
 */
export function ImageUpload({
  label,
  value,
  onChange,
  error,
  testId,
  onUploading,
}: {
  label: string;
  value: string;
  onChange: (id: string) => void;
  error?: string;
  testId?: string;
  /** Told when an upload starts and ends (a form waits for it before it can be sent). */
  onUploading?: (uploading: boolean) => void;
}) {
  const { t } = useTranslation();
  const inputId = useId();
  const [preview, setPreview] = useState<string | null>(null);
  const [busy, setBusy] = useState(false);
  useEffect(() => () => void (preview && URL.revokeObjectURL(preview)), [preview]);
  // An upload that ends after the form is gone makes no preview (its object URL would never be revoked).
  const mounted = useRef(false);
  useEffect(() => {
    mounted.current = true;
    return () => {
      mounted.current = false;
    };
  }, []);
  // The parent cleared the field (e.g. after sending the form): the photo goes too.
  useEffect(() => {
    if (!value) setPreview(null);
  }, [value]);

  const pick = async (file: File | undefined) => {
    if (!file) return;
    setBusy(true);
    onUploading?.(true);
    try {
      let blob: Blob = file;
      try {
        blob = await compressImage(file);
      } catch {
        // Not decodable here: send the original and let the server judge it.
      }
      const { id } = await uploadImage(blob, 'photo.jpg', { quiet: true });
      if (mounted.current) setPreview(URL.createObjectURL(blob));
      onChange(id);
    } catch (e) {
      toast(`${t('upload.failed')}${e instanceof Error && e.message ? `: ${e.message}` : ''}`);
    } finally {
      setBusy(false);
      onUploading?.(false);
    }
  };
  return (
    <div className={`field image-upload${error ? ' has-error' : ''}`}>
      <span className="field__label" id={`${inputId}-label`}>
        {label}
      </span>
      <label htmlFor={inputId} className="image-upload__box" data-testid={testId}>
        {preview ? (
          <img src={preview} alt={t('upload.preview', { name: label })} />
        ) : (
          <span className="muted">{busy ? t('upload.uploading') : t('upload.choose')}</span>
        )}
        {value && !busy && <span className="image-upload__done">{t('upload.done')}</span>}
      </label>
      <input
        id={inputId}
        className="visually-hidden"
        type="file"
        accept="image/jpeg,image/png,image/*"
        aria-labelledby={`${inputId}-label`}
        disabled={busy}
        onChange={(e) => {
          void pick(e.target.files?.[0]);
          // Emptied, so that choosing the same file again (e.g. after a failed upload) is a change too.
          e.target.value = '';
        }}
      />
      {error && (
        <p className="field__error" role="alert">
          {error}
        </p>
      )}
    </div>
  );
}
