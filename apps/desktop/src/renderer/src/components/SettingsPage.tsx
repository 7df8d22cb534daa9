import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { errorMessage, STRATEGIES, type ProviderProfile, type VisibilityLevel } from '@threadline/protocol';
import { providerRoutes } from '../store/routes';
import { Dialog } from './Dialog';
import { useAppStore } from '../store';
import type { SettingsTab } from '../store/types';
import { IconX } from './Icons';
import { LanguageSwitch } from './LanguageSwitch';
import { McpSettings } from './McpSettings';
import { HelperSettings } from './HelperSettings';
import { ProviderForm } from './ProviderForm';
import { ReachSettings } from './ReachSettings';
import { RulesSettings } from './RulesSettings';
import { UsageSettings } from './UsageSettings';
import { SandboxState } from './SandboxState';
import { CustomInstructionsSetting } from './CustomInstructionsSetting';
import { ProjectMemorySettings } from './ProjectMemorySettings';
import { Segmented, SettingRow, Toggle } from './SettingsControls';
import { FormBanner } from './form/Field';
import { SettingField, type SettingsPartProps } from './form/SettingField';
import { useApplySettings } from '../hooks/useApplySettings';
import { holdForRefusedSetting } from '../lib/refusedSetting';

type Tab = SettingsTab;
const TABS: Tab[] = ['general', 'providers', 'context', 'tools', 'rules', 'helpers', 'usage'];
const LEVELS: VisibilityLevel[] = ['off', 'brief', 'debug'];

function General() {
  const { t } = useTranslation();
  const settings = useAppStore((s) => s.settings);
  const { apply, error, clear } = useApplySettings();
  if (!settings) return null;
  const part: SettingsPartProps = { settings, apply, onRefused: clear };
  return (
    <section className="settings-section">
      <SettingRow label={t('settings.general.language')} htmlFor="lang">
        <LanguageSwitch id="lang" />
      </SettingRow>
      <SettingRow label={t('settings.general.theme')}>
        <Segmented
          label={t('settings.general.theme')}
          value={settings.theme}
          options={(['light', 'dark', 'system'] as const).map((v) => ({
            value: v,
            label: t(`settings.general.themes.${v}`),
          }))}
          onChange={(theme) => apply({ theme })}
          testId="theme-select"
        />
      </SettingRow>
      <SettingRow
        label={t('settings.general.approval')}
        help={t(`settings.general.approvalHelp.${settings.approvalPolicy}`)}
      >
        <Segmented
          label={t('settings.general.approval')}
          value={settings.approvalPolicy}
          options={(['sandboxed', 'ask', 'auto', 'deny'] as const).map((v) => ({
            value: v,
            label: t(`settings.general.approvals.${v}`),
          }))}
          onChange={(approvalPolicy) => apply({ approvalPolicy })}
          testId="approval-select"
        />
      </SettingRow>
      <SandboxState policy={settings.approvalPolicy} />
      <ReachSettings {...part} />
      <CustomInstructionsSetting {...part} />
      <FormBanner banner={error ? { tone: 'error', text: error, testId: 'settings-error' } : null} />
    </section>
  );
}

/** Asks before a profile goes: it names the sessions that used it (they go back to the active profile). */
function DeleteProfile({ profile, onClose }: { profile: ProviderProfile; onClose: () => void }) {
  const { t } = useTranslation();
  const all = useAppStore((s) => s.sessions);
  const sessions = all.filter((x) => x.profileId === profile.id);
  const loadProviders = useAppStore((s) => s.loadProviders);
  const [error, setError] = useState<string | null>(null);
  const [working, setWorking] = useState(false);
  const remove = async () => {
    setWorking(true);
    try {
      await providerRoutes.remove({ id: profile.id });
      await loadProviders();
      onClose();
    } catch (err) {
      setError(errorMessage(err));
      setWorking(false);
    }
  };
  return (
    <Dialog
      title={t('provider.delete.title', { name: profile.name })}
      onClose={onClose}
      testId="delete-profile-dialog"
      footer={
        <>
          <button type="button" className="btn" onClick={onClose}>
            {t('common.cancel')}
          </button>
          <button
            type="button"
            className="btn btn-danger"
            disabled={working}
            onClick={() => void remove()}
            data-testid="delete-profile-confirm"
          >
            {t('provider.delete.confirm')}
          </button>
        </>
      }
    >
      <p>{t('provider.delete.body')}</p>
      {profile.active && <p className="muted">{t('provider.delete.active')}</p>}
      {sessions.length > 0 ? (
        <>
          <p>{t('provider.delete.sessions')}</p>
          <ul className="delete-sessions" data-testid="delete-profile-sessions">
            {sessions.map((s) => (
              <li key={s.id}>{s.title || t('sidebar.untitled')}</li>
            ))}
          </ul>
        </>
      ) : (
        <p className="muted">{t('provider.delete.noSessions')}</p>
      )}
      <FormBanner banner={error ? { tone: 'error', text: error } : null} />
    </Dialog>
  );
}

function Providers({ editActive }: { editActive: boolean }) {
  const { t } = useTranslation();
  const providers = useAppStore((s) => s.providers);
  // Opened from a provider error: the active profile's form, ready to fix.
  const [editing, setEditing] = useState<string | 'new' | null>(() =>
    editActive ? (providers.find((p) => p.active)?.id ?? null) : null,
  );
  const profile = providers.find((p) => p.id === editing);
  const [deleting, setDeleting] = useState<ProviderProfile | null>(null);
  return (
    <section className="settings-section">
      <ul className="provider-list">
        {providers.map((p) => (
          <li key={p.id} className={`provider-item ${p.active ? 'active' : ''}`} data-testid="provider-item">
            <div className="provider-info">
              <div className="provider-name">
                {p.name}
                {p.active && (
                  <span className="badge badge-ok" title={t('provider.activeHint')}>
                    {t('provider.active')}
                  </span>
                )}
              </div>
              <div className="muted mono">{t('provider.summary', { model: p.model, url: p.baseUrl })}</div>
            </div>
            <button
              type="button"
              className="btn btn-small"
              onClick={() => setEditing(editing === p.id ? null : p.id)}
              data-testid="edit-profile"
            >
              {t('provider.edit')}
            </button>
            <button
              type="button"
              className="btn btn-small btn-ghost"
              onClick={() => setDeleting(p)}
              data-testid="delete-profile"
            >
              {t('provider.delete.action')}
            </button>
          </li>
        ))}
      </ul>
      {deleting && (
        <DeleteProfile
          profile={deleting}
          onClose={() => {
            if (editing === deleting.id) setEditing(null);
            setDeleting(null);
          }}
        />
      )}
      {editing === null && (
        <button type="button" className="btn" onClick={() => setEditing('new')} data-testid="add-provider">
          {t('provider.add')}
        </button>
      )}
      {editing !== null && (
        <div className="provider-edit">
          <ProviderForm
            key={editing}
            profile={profile}
            submitLabel={t('provider.saveActivate')}
            onSaved={() => setEditing(null)}
          />
        </div>
      )}
    </section>
  );
}

function Context() {
  const { t } = useTranslation();
  const settings = useAppStore((s) => s.settings);
  const { apply, error, clear } = useApplySettings();
  if (!settings) return null;
  const part: SettingsPartProps = { settings, apply, onRefused: clear };
  const levelOptions = LEVELS.map((v) => ({ value: v, label: t(`settings.context.levels.${v}`) }));
  return (
    <section className="settings-section">
      <h3 className="settings-h">{t('settings.context.compactionHeading')}</h3>
      <div
        className="strategy-list"
        role="radiogroup"
        aria-label={t('settings.context.strategyLabel')}
        data-testid="strategy-select"
      >
        {STRATEGIES.map((s) => (
          <button
            key={s}
            type="button"
            role="radio"
            aria-checked={settings.compaction.strategy === s}
            className={`strategy ${settings.compaction.strategy === s ? 'selected' : ''}`}
            onClick={() => apply({ compaction: { strategy: s } })}
            data-value={s}
          >
            <span className="radio-dot" />
            <span>
              <span className="strategy-name">{t(`settings.context.strategy.${s}.name`)}</span>
              <span className="strategy-desc">{t(`settings.context.strategy.${s}.desc`)}</span>
            </span>
          </button>
        ))}
      </div>
      <SettingField
        name="autoThreshold"
        {...part}
        label={t('settings.context.threshold')}
        help={t('settings.context.thresholdHelp')}
        suffix={t('settings.context.percentSuffix')}
        testId="threshold-input"
      />
      <SettingField
        name="toolOutputMaxTokens"
        {...part}
        label={t('settings.context.toolOutput')}
        help={t('settings.context.toolOutputHelp')}
        suffix={t('settings.context.tokensSuffix')}
        testId="tool-output-input"
      />
      <h3 className="settings-h">{t('settings.context.memoryHeading')}</h3>
      <SettingRow
        label={t('settings.context.runtimeVisibility')}
        help={t(`settings.context.levelHelp.${settings.cfpm.runtimeVisibility}`)}
      >
        <Segmented
          label={t('settings.context.runtimeVisibility')}
          value={settings.cfpm.runtimeVisibility}
          options={levelOptions}
          onChange={(runtimeVisibility) => apply({ cfpm: { runtimeVisibility } })}
          testId="runtime-visibility"
        />
      </SettingRow>
      <SettingRow label={t('settings.context.gateVisibility')} help={t('settings.context.gateVisibilityHelp')}>
        <Segmented
          label={t('settings.context.gateVisibility')}
          value={settings.cfpm.toolGateVisibility ?? 'inherit'}
          options={[{ value: 'inherit', label: t('settings.context.levels.inherit') }, ...levelOptions]}
          onChange={(v) => apply({ cfpm: { toolGateVisibility: v === 'inherit' ? null : v } })}
          testId="gate-visibility"
        />
      </SettingRow>
      <SettingRow label={t('settings.context.preToolGate')} help={t('settings.context.preToolGateHelp')}>
        <Toggle
          label={t('settings.context.preToolGate')}
          checked={settings.cfpm.preToolGate}
          onChange={(preToolGate) => apply({ cfpm: { preToolGate } })}
          testId="pre-tool-gate"
        />
      </SettingRow>
      <ProjectMemorySettings {...part} />
      <FormBanner banner={error ? { tone: 'error', text: error, testId: 'settings-error' } : null} />
    </section>
  );
}

export function SettingsPage() {
  const { t } = useTranslation();
  const setPanel = useAppStore((s) => s.setPanel);
  const [opened] = useState<Tab>(() => useAppStore.getState().settingsTab);
  const [tab, setTab] = useState<Tab>(opened);
  // The tab asked for applies to this opening only; the next one starts on General again.
  useEffect(() => useAppStore.setState({ settingsTab: 'general' }), []);
  const ref = useRef<HTMLDivElement>(null);
  // Focus moves into the page and, when it closes, back to where it was.
  useEffect(() => {
    const before = document.activeElement as HTMLElement | null;
    ref.current?.querySelector<HTMLElement>('.nav-item.on')?.focus();
    return () => {
      if (before?.isConnected) before.focus();
    };
  }, []);
  return (
    <div
      className="settings-page"
      role="dialog"
      aria-modal="true"
      aria-label={t('settings.title')}
      data-testid="settings-page"
      ref={ref}
    >
      <nav className="settings-nav">
        <div className="settings-nav-title">{t('settings.title')}</div>
        {TABS.map((k) => (
          <button
            key={k}
            type="button"
            className={`nav-item ${tab === k ? 'on' : ''}`}
            onClick={() => setTab(k)}
            data-testid={`settings-tab-${k}`}
          >
            {t(`settings.tabs.${k}`)}
          </button>
        ))}
      </nav>
      <div className="settings-content">
        <div className="settings-head">
          <h2>{t(`settings.tabs.${tab}`)}</h2>
          <span className="spacer" />
          <button
            type="button"
            className="icon-btn"
            aria-label={t('common.close')}
            title={t('common.close')}
            onClick={() => {
              if (!holdForRefusedSetting()) setPanel('none');
            }}
            data-testid="close-settings"
          >
            <IconX />
          </button>
        </div>
        {tab === 'general' && <General />}
        {tab === 'providers' && <Providers editActive={opened === 'providers'} />}
        {tab === 'context' && <Context />}
        {tab === 'tools' && <McpSettings />}
        {tab === 'rules' && <RulesSettings />}
        {tab === 'helpers' && <HelperSettings />}
        {tab === 'usage' && <UsageSettings />}
      </div>
    </div>
  );
}
