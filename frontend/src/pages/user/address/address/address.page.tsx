import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useSearchParams } from 'react-router-dom';
import { walletApi, type AddressEntry } from '../../../../api/wallet';
import { PATHS } from '../../../../app/paths';
import { Empty, LoadFailed, Skeleton } from '../../../../components/feedback';
import { Page } from '../../../../components/page';
import { toast } from '../../../../stores/toast.store';

/**
 * The withdrawal address book. `address` manages it (add, delete); `index` is the same list as a
 * picker for the withdraw form (`?currency_id=&chain=`: a tap returns to withdraw with that address).
 */
export function AddressPage({ titleKey, picker = false }: { titleKey: string; picker?: boolean }) {
  const { t } = useTranslation();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const currencyId = Number(params.get('currency_id')) || undefined;
  const chain = params.get('chain');
  // undefined while loading, null when the load failed.
  const [items, setItems] = useState<AddressEntry[] | null | undefined>(undefined);
  const [deleting, setDeleting] = useState<string | null>(null);
  const load = () => walletApi.addresses(currencyId).then((list) => setItems(chain ? list.filter((a) => a.chain === chain) : list), () => setItems(null));
  useEffect(() => void load(), []);
  const remove = async (a: AddressEntry) => {
    if (!window.confirm(t('address.confirmDelete', { address: a.address }))) return;
    setDeleting(String(a.id));
    try {
      toast(await walletApi.deleteAddress(String(a.id)));
      await load();
    } catch {
      // shown by the client
    } finally {
      setDeleting(null);
    }
  };
  return (
    <Page title={t(titleKey)} right={<Link className="button button--small" to={`${PATHS.addressCreate}${currencyId ? `?currency_id=${currencyId}${chain ? `&chain=${encodeURIComponent(chain)}` : ''}` : ''}`} data-testid="address-add">{t('address.add')}</Link>}>
      <section className="card">
        {items === undefined ? (
          <Skeleton rows={3} />
        ) : items === null ? (
          <LoadFailed
            onRetry={() => {
              setItems(undefined);
              void load();
            }}
          />
        ) : items.length === 0 ? (
          <Empty text={t('address.empty')} />
        ) : (
          <ul className="list" data-testid="address-list">
            {items.map((a) => (
              <li key={a.id} className="record">
                <div className="record__head">
                  <strong>
                    {a.symbol} · {a.chain}
                  </strong>
                  {a.remark && <span className="muted small">{a.remark}</span>}
                </div>
                <p className="address-box">{a.address}</p>
                {picker ? (
                  <button type="button" className="button button--block" onClick={() => navigate(`${PATHS.withdraw}?currency_id=${a.currency_id}&address_id=${a.id}`, { replace: true })}>
                    {t('address.use')}
                  </button>
                ) : (
                  <button type="button" className="button button--danger button--block" onClick={() => void remove(a)} disabled={deleting === String(a.id)} data-testid="address-delete">
                    {t('address.delete')}
                  </button>
                )}
              </li>
            ))}
          </ul>
        )}
      </section>
    </Page>
  );
}

export const AddressIndexPage = ({ titleKey }: { titleKey: string }) => <AddressPage titleKey={titleKey} picker />;
