import { useTranslation } from 'react-i18next';
import { nftImageSrc, type NftItem, type NftOwner } from '../../api/nft';
import './nft.css';

export { isPrice, nftPrice, proceedsOf } from './nft-format';

export function NftArt({ src, alt, className }: { src: string | null | undefined; alt: string; className?: string }) {
  // No image: no `src` at all (an empty one makes the browser fetch the page again), the art's frame stays.
  return <img className={`nft-art ${className ?? ''}`} src={nftImageSrc(src) || undefined} alt={alt} loading="lazy" decoding="async" width={160} height={160} />;
}

/** The owner as everyone sees it: the house, "you", or a masked name. */
export function OwnerName({ owner }: { owner: NftOwner }) {
  const { t } = useTranslation();
  if (owner.is_me) return <>{t('nft.you')}</>;
  return <>{owner.type === 'house' ? t('nft.house') : owner.name}</>;
}

/** On sale / not for sale / being sold / mine, in words (not by colour alone). */
export function StateBadge({ item }: { item: Pick<NftItem, 'state' | 'owner'> }) {
  const { t } = useTranslation();
  if (item.state === 'reserved') return <span className="nft-badge">{t('nft.state.reserved')}</span>;
  if (item.state === 'listed') return <span className="nft-badge nft-badge--sale">{t('nft.state.listed')}</span>;
  if (item.owner.is_me) return <span className="nft-badge nft-badge--mine">{t('nft.state.mine')}</span>;
  return <span className="nft-badge">{t('nft.state.held')}</span>;
}
