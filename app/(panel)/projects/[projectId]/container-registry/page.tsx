import type { Metadata } from 'next';
import { RegistriesPage } from '@/components/containerRegistry/RegistriesPage';
import { registryProviderInfo } from './providerInfo';

export const metadata: Metadata = { title: 'Container registry' };

export default function ProjectContainerRegistryPage() {
  return <RegistriesPage provider={registryProviderInfo()} />;
}
