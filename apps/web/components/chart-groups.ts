/** Which metric keys share a chart, in display order; keys matching no group get no chart of their own here. */
export const CHART_GROUPS: { title: string; keys: RegExp; log?: boolean }[] = [
  { title: 'Success', keys: /^(val|train)\/success$/ },
  { title: 'Reward', keys: /^(val|train)\/reward\/mean$/ },
  { title: 'In-group reward std', keys: /^rollout\/(in_group_reward_std|chosen_in_group_reward_std)$/ },
  { title: 'Entropy', keys: /^(train\/entropy|val\/entropy)$/ },
  { title: 'Well-formed replies', keys: /^(train|val)\/well_formed_rate$/ },
  { title: 'Valid / effective actions', keys: /^train\/action_is_(valid|effective)$/ },
  { title: 'Response length (tokens)', keys: /^(train\/response_length|train\/think_length)$/ },
  { title: 'Gradient norm', keys: /^(actor|critic)\/grad_norm$/, log: true },
  { title: 'KL', keys: /^actor\/(kl_ref|ppo_kl|kl_loss)$/ },
  { title: 'Clip fraction', keys: /^actor\/pg_clipfrac(_lower)?$/ },
  { title: 'Policy loss', keys: /^actor\/pg_loss$/ },
  { title: 'Value loss', keys: /^critic\/vf_loss$/ },
  { title: 'Filter kept ratio', keys: /^rollout\/filter_kept_ratio$/ },
  { title: 'Timings (s)', keys: /^timing_s\/(gen|update_actor|update_critic|old_log_prob|ref|testing|step)$/ },
  { title: 'Throughput (tokens/s)', keys: /^perf\/tokens_per_s$/ },
];

export function groupKeys(keys: string[]): { title: string; keys: string[]; log?: boolean }[] {
  return CHART_GROUPS.map((g) => ({ title: g.title, log: g.log, keys: keys.filter((k) => g.keys.test(k)) })).filter(
    (g) => g.keys.length > 0,
  );
}
