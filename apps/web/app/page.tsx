export default function Home() {
  return (
    <div className="panel">
      <h1>StarPO Studio</h1>
      <p>Train language-model agents with multi-turn RL (StarPO) in Sokoban, FrozenLake and Bandit, and look inside what they learned.</p>
      <p>
        <a href="/envs">Preview the environments</a> for any seed.
      </p>
    </div>
  );
}
